/* SPDX-License-Identifier: MIT */
/* BUG-DEFINITIONS-BEGIN */
/* Deliberately broken plugins for the harness's own tests: the text of the example plugin
 * (backends/example/example_plugin.c, which carries no test hooks) with one plausible bug per
 * build, chosen by -DBITCTS_BUG=<name> (tests/plugins/CMakeLists.txt lists the names). Outside
 * this block every change is an `#if BUG == BUG_<name>` block (`BUG != BUG_none`: every bug)
 * whose #else keeps the example's lines; tests/plugins/check_derived.py strips them and diffs
 * the rest against the example. */
#define _POSIX_C_SOURCE 200809L /* nanosleep for the hang bug */

#include <signal.h> /* raise, SIGSEGV */
#include <stdlib.h> /* abort */
#include <time.h>   /* nanosleep */

/* The bugs. BUG is the number of the one compiled in; BUG_none, the example, is never built. */
#define BUG_none 0
#define BUG_ignores_strides 1     /* treats every tensor as packed */
#define BUG_zero_stride 2         /* replaces a zero (broadcast) stride by the packed one */
#define BUG_skip_last_odd 3       /* skips the last element when the element count is odd */
#define BUG_write_past_end 4      /* flips the element-width bytes at TotalTensorSizeInBytes */
#define BUG_nan_canonicalise 5    /* FLOAT32/16 NaN results of AND/OR/XOR/NOT -> canonical qNaN */
#define BUG_fp16_denormal_flush 6 /* FLOAT16 denormal results -> signed zero */
#define BUG_popcount_top_bit 7    /* BIT_COUNT ignores bit 63 of 64-bit inputs */
#define BUG_count_input_width 8   /* BIT_COUNT writes elements of the input's width */
#define BUG_corrupt_input 9       /* flips the first byte of input A after computing */
#define BUG_broken_in_place 10    /* in place: fills the output with ~0 before computing */
#define BUG_crash_rank8 11        /* raise(SIGSEGV) when DimensionCount is 8 */
#define BUG_hang 12               /* sleeps forever in BIT_XOR UINT16 */
#define BUG_abort_count 13        /* abort() in BIT_COUNT */
#define BUG_claims_fp64 14        /* claims FLOAT64 at FL 4_1, then NOT_SUPPORTED for it */
#define BUG_accepts_invalid 15    /* operator_create accepts invalid descriptions */
#define BUG_pad_write 16          /* flips every output byte that no element covers */
#define BUG_writes_nothing 17     /* execute returns success without writing (and costs nothing) */
#define BUG_permuted_padded 18    /* a tensor both permuted and padded: its padding is dropped */
#define BROKEN_ID_(name) BUG_##name
#define BROKEN_ID(name) BROKEN_ID_(name)
#define BROKEN_STR_(name) #name
#define BROKEN_STR(name) BROKEN_STR_(name)
#define BUG BROKEN_ID(BITCTS_BUG)
#if !defined(BITCTS_BUG) || BUG < 1 || BUG > 18
#error "define BITCTS_BUG as one of the BUG_<name> names above"
#endif
/* BUG-DEFINITIONS-END */
/* The bitcts example plugin: a small, portable and obviously correct implementation of the seven
 * DirectML bitwise operators behind the plugin ABI, written to be copied. It validates operator
 * descriptions the way DirectML does and walks tensors with an odometer, one element at a time.
 * It builds against include/bitcts/bitcts_plugin.h alone (docs/plugin-abi.md walks through it). */
#include <stddef.h> /* size_t, offsetof */
#include <stdint.h> /* fixed-width integers */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_plugin.h" /* the ABI, with the DML numbers of bitcts_dml.h */

/* Tensors of an operator in walking order: A (or Input), B, Output. */
#define EX_TENSOR_A 0u
#define EX_TENSOR_B 1u
#define EX_TENSOR_OUT 2u

typedef struct example_instance {
    char last_error[256];
} example_instance;

/* A validated operator: the shape, and per tensor its element width and byte strides. */
typedef struct example_operator {
    uint32_t operator_type;
    uint32_t input_count;
    uint32_t rank;
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint64_t elements;                         /* product of sizes, <= 2^32 - 1 */
    uint32_t width[3];                         /* bytes per element, 0 for an absent B */
    uint64_t stride_bytes[3][BITCTS_MAX_DIMS]; /* explicit or packed strides times width */
#if BUG != BUG_none
    /* TotalTensorSizeInBytes per tensor, the data types, and 0 in `valid` for an operator
     * that accepts_invalid created from an invalid description. */
    uint64_t total_bytes[3];
    uint32_t in_type;
    uint32_t out_type;
    int valid;
#endif
} example_operator;

/* The host's services, retained from negotiation until plugin_shutdown. */
static const bitcts_abi_host *example_host;

static void example_log(int32_t level, const char *message)
{
    const bitcts_abi_host *host = example_host;
    if (host != NULL && host->struct_size >= offsetof(bitcts_abi_host, log) + sizeof host->log &&
        host->log != NULL) {
        host->log(host->user, level, message);
    }
}

/* ---- the arithmetic: raw bits, so float NaN payloads, -0 and denormals pass untouched ---- */

static uint64_t example_load(const uint8_t *p, uint32_t width)
{
    uint64_t value = 0;
    for (uint32_t i = 0; i < width; ++i) {
        value |= (uint64_t)p[i] << (8u * i); /* little-endian, as DirectML buffers are */
    }
    return value;
}

static void example_store(uint8_t *p, uint32_t width, uint64_t value)
{
    for (uint32_t i = 0; i < width; ++i) {
        p[i] = (uint8_t)(value >> (8u * i));
    }
}

static uint64_t example_popcount(uint64_t value)
{
    uint64_t count = 0;
    while (value != 0) {
        value &= value - 1; /* clears the lowest set bit */
        ++count;
    }
    return count;
}

/* One element. `bits` is the input width; a and b hold raw bits, zero above `bits`. A shift
 * count >= the width gives 0 (a choice: DirectML does not specify it, spec section 1.5, and
 * bitcts records but does not assert it). */
static uint64_t example_compute(uint32_t operator_type, uint32_t bits, uint64_t a, uint64_t b)
{
#if BUG == BUG_popcount_top_bit
    if (operator_type == BITCTS_OP_BIT_COUNT && bits == 64) {
        a &= ~((uint64_t)1 << 63);
    }
#endif
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    switch (operator_type) {
    case BITCTS_OP_BIT_AND: return a & b;
    case BITCTS_OP_BIT_OR: return a | b;
    case BITCTS_OP_BIT_XOR: return a ^ b;
    case BITCTS_OP_BIT_NOT: return ~a & mask;
    case BITCTS_OP_BIT_COUNT: return example_popcount(a);
    case BITCTS_OP_BIT_SHIFT_LEFT: return b >= bits ? 0 : (a << b) & mask;
    case BITCTS_OP_BIT_SHIFT_RIGHT: return b >= bits ? 0 : a >> b;
    default: return 0;
    }
}

/* ---- walking a tensor ---- */

/* An odometer over a shape that keeps one offset per tensor in step with the index, so a step
 * costs additions only (no division per element). After the last element it wraps to 0. */
typedef struct example_walk {
    uint32_t rank;
    uint32_t tensor_count;
    const uint32_t *sizes;
    const uint64_t (*strides)[BITCTS_MAX_DIMS]; /* strides[t][d] of tensor t */
    uint32_t index[BITCTS_MAX_DIMS];
    uint64_t offset[3];
} example_walk;

static void example_walk_start(example_walk *w, uint32_t rank, const uint32_t *sizes,
                               uint32_t tensor_count, const uint64_t (*strides)[BITCTS_MAX_DIMS])
{
    memset(w, 0, sizeof *w);
    w->rank = rank;
    w->sizes = sizes;
    w->tensor_count = tensor_count;
    w->strides = strides;
}

static void example_walk_next(example_walk *w)
{
    for (uint32_t d = w->rank; d-- > 0;) { /* innermost dimension fastest */
        if (++w->index[d] < w->sizes[d]) {
            for (uint32_t t = 0; t < w->tensor_count; ++t) {
                w->offset[t] += w->strides[t][d];
            }
            return;
        }
        w->index[d] = 0;
        for (uint32_t t = 0; t < w->tensor_count; ++t) {
            w->offset[t] -= (uint64_t)(w->sizes[d] - 1) * w->strides[t][d];
        }
    }
}

/* ---- validation of a description, rule by rule, like DirectML's CreateOperator ---- */

/* Records why a description was refused and returns the status. */
static int32_t example_refuse(example_instance *inst, int32_t status, const char *tensor,
                              const char *rule, const char *detail)
{
    snprintf(inst->last_error, sizeof inst->last_error, "%s: %s: %s", tensor, rule, detail);
    return status;
}

/* DMLCalcBufferTensorSize in 64 bits: roundup((index of last element + 1) * width, 4).
 * Returns 0 when it overflows. Strides must already be resolved (packed ones filled in). */
static uint64_t example_required_bytes(uint32_t rank, const uint32_t *sizes,
                                       const uint64_t *strides, uint32_t width)
{
    uint64_t last = 0;
    for (uint32_t d = 0; d < rank; ++d) {
        const uint64_t term = (uint64_t)(sizes[d] - 1) * strides[d]; /* < 2^64: 32 x 32 bits */
        if (last > UINT64_MAX - term) {
            return 0;
        }
        last += term;
    }
    if (last > UINT64_MAX / width - 1) {
        return 0;
    }
    const uint64_t bytes = (last + 1) * width;
    if (bytes > UINT64_MAX - 3) {
        return 0;
    }
    return (bytes + 3) & ~(uint64_t)3;
}

/* True when two elements of the walk share an offset. A fast sufficient test comes first:
 * sorted by stride, each dimension's stride must exceed the reach of the smaller ones. Layouts
 * it cannot prove (interleaved ones) are walked exactly with a bitmap of the offsets. Zero
 * strides on dimensions of size > 1 are refused before this is called. */
static int32_t example_output_overlaps(uint32_t rank, const uint32_t *sizes,
                                       const uint64_t *strides, uint64_t elements, int *overlaps)
{
    uint32_t order[BITCTS_MAX_DIMS];
    uint32_t n = 0;
    for (uint32_t d = 0; d < rank; ++d) {
        if (sizes[d] > 1) {
            uint32_t i = n++;
            for (; i > 0 && strides[order[i - 1]] > strides[d]; --i) {
                order[i] = order[i - 1];
            }
            order[i] = d;
        }
    }
    uint64_t reach = 0; /* highest offset the dimensions seen so far can produce */
    int proven = 1;
    for (uint32_t i = 0; i < n; ++i) {
        proven = proven && strides[order[i]] > reach;
        reach += (uint64_t)(sizes[order[i]] - 1) * strides[order[i]];
    }
    *overlaps = 0;
    if (proven) {
        return BITCTS_ABI_OK;
    }
    /* reach < the buffer's element capacity (its size was checked first), so the bitmap is
     * at most an eighth of the output buffer. */
    uint8_t *seen = calloc((size_t)(reach / 8 + 1), 1);
    if (seen == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    uint64_t one_tensor[1][BITCTS_MAX_DIMS];
    memcpy(one_tensor[0], strides, rank * sizeof strides[0]);
    example_walk walk;
    example_walk_start(&walk, rank, sizes, 1, (const uint64_t(*)[BITCTS_MAX_DIMS])one_tensor);
    for (uint64_t e = 0; e < elements && !*overlaps; ++e) {
        const uint64_t at = walk.offset[0];
        const uint8_t bit = (uint8_t)(1u << (at & 7u));
        *overlaps = (seen[at >> 3] & bit) != 0;
        seen[at >> 3] = (uint8_t)(seen[at >> 3] | bit);
        example_walk_next(&walk);
    }
    free(seen);
    return BITCTS_ABI_OK;
}

/* An output must give every element its own place: no zero stride on a dimension of size > 1
 * and no two elements at one offset (spec section 3.7). */
static int32_t example_check_output_layout(example_instance *inst, const bitcts_abi_tensor *t,
                                           const char *role, const uint64_t *strides,
                                           uint64_t elements)
{
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (strides[d] == 0 && t->sizes[d] > 1) {
            char detail[160];
            snprintf(detail, sizeof detail, "Strides[%u] is 0 with Sizes[%u] = %u", (unsigned)d,
                     (unsigned)d, (unsigned)t->sizes[d]);
            return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "output_zero_stride",
                                  detail);
        }
    }
    int overlaps = 0;
    const int32_t status =
        example_output_overlaps(t->dimension_count, t->sizes, strides, elements, &overlaps);
    if (status != BITCTS_ABI_OK) {
        return example_refuse(inst, status, role, "memory", "no memory for the overlap check");
    }
    if (overlaps) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "output_overlap",
                              "two output elements share an offset");
    }
    return BITCTS_ABI_OK;
}

/* The rules of one DML_BUFFER_TENSOR_DESC on its own; fills its element strides. */
static int32_t example_check_tensor(example_instance *inst, const bitcts_abi_tensor *t,
                                    const char *role, int is_output, uint64_t *strides)
{
    char detail[160];
    if (t == NULL || t->struct_size < sizeof *t) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_ARGUMENT, role, "struct",
                              "tensor missing or struct_size too small");
    }
    if ((t->flags & ~BITCTS_TENSOR_FLAG_OWNED_BY_DML) != 0) {
        snprintf(detail, sizeof detail, "Flags 0x%x has undefined bits", (unsigned)t->flags);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "unknown_flags", detail);
    }
    if (is_output && (t->flags & BITCTS_TENSOR_FLAG_OWNED_BY_DML) != 0) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "output_flags",
                              "DML_TENSOR_FLAG_OWNED_BY_DML is for inputs only");
    }
    const uint32_t width = bitcts_dml_type_bytes(t->data_type);
    if (width == 0) {
        snprintf(detail, sizeof detail, "DataType %u is unknown", (unsigned)t->data_type);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "unknown_type", detail);
    }
    if (t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        snprintf(detail, sizeof detail, "DimensionCount %u is outside 1..8",
                 (unsigned)t->dimension_count);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "dimension_count",
                              detail);
    }
    if (t->sizes == NULL) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_ARGUMENT, role, "struct", "Sizes is NULL");
    }
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] == 0) {
            snprintf(detail, sizeof detail, "Sizes[%u] is 0", (unsigned)d);
            return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "size_zero", detail);
        }
        elements *= t->sizes[d]; /* stays <= 2^32 * (2^32 - 1): checked every step */
        if (elements > BITCTS_MAX_ELEMENTS) {
            return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "too_many_elements",
                                  "more than 2^32-1 elements");
        }
    }
    const uint32_t align = t->guaranteed_base_offset_alignment;
    if (align != 0 && ((align & (align - 1)) != 0 || align < width)) {
        snprintf(detail, sizeof detail,
                 "GuaranteedBaseOffsetAlignment %u is not a power of two >= %u", (unsigned)align,
                 (unsigned)width);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "alignment", detail);
    }
    /* Packed strides when Strides is NULL: each is the product of the inner sizes. */
    uint64_t packed = 1;
    for (uint32_t d = t->dimension_count; d-- > 0;) {
        strides[d] = t->strides != NULL ? t->strides[d] : packed;
        packed *= t->sizes[d];
    }
    const uint64_t required = example_required_bytes(t->dimension_count, t->sizes, strides, width);
    if (required == 0) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "size_overflow",
                              "the implied buffer size overflows 64 bits");
    }
    if (t->total_tensor_size_in_bytes < required) {
        snprintf(detail, sizeof detail,
                 "TotalTensorSizeInBytes %llu < DMLCalcBufferTensorSize %llu",
                 (unsigned long long)t->total_tensor_size_in_bytes, (unsigned long long)required);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "buffer_too_small",
                              detail);
    }
    return is_output ? example_check_output_layout(inst, t, role, strides, elements)
                     : BITCTS_ABI_OK; /* inputs may broadcast (zero strides) and overlap */
}

/* The rules between tensors and the per-operator type tables (spec sections 1.2, 1.3). */
static int32_t example_check_pair(example_instance *inst, uint32_t operator_type,
                                  const bitcts_abi_tensor *t, const bitcts_abi_tensor *first,
                                  const char *role, int is_output)
{
    char detail[160];
    if (t->dimension_count != first->dimension_count) {
        snprintf(detail, sizeof detail, "DimensionCount %u differs from the first input's %u",
                 (unsigned)t->dimension_count, (unsigned)first->dimension_count);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "dims_mismatch", detail);
    }
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        if (t->sizes[d] != first->sizes[d]) {
            snprintf(detail, sizeof detail, "Sizes[%u] = %u differs from the first input's %u",
                     (unsigned)d, (unsigned)t->sizes[d], (unsigned)first->sizes[d]);
            return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "sizes_mismatch",
                                  detail);
        }
    }
    const int count_output = is_output && operator_type == BITCTS_OP_BIT_COUNT;
    if (!count_output && t->data_type != first->data_type) {
        snprintf(detail, sizeof detail, "DataType %u differs from the first input's %u",
                 (unsigned)t->data_type, (unsigned)first->data_type);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role, "type_mismatch", detail);
    }
    const uint32_t allowed = is_output ? bitcts_dml_op_output_types(operator_type)
                                       : bitcts_dml_op_input_types(operator_type);
    if ((allowed & BITCTS_DT_BIT(t->data_type)) == 0) {
        snprintf(detail, sizeof detail, "DataType %u is not allowed for operator %u",
                 (unsigned)t->data_type, (unsigned)operator_type);
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, role,
                              is_output ? "output_type_not_allowed" : "type_not_allowed", detail);
    }
    return BITCTS_ABI_OK;
}

#if BUG == BUG_permuted_padded
/* A shape the case plan lacks: strides out of order (a permutation) and larger than packed in
 * their own order (padding), no broadcast. Such a tensor's strides become packed ones in the
 * same order: the padding is dropped. */
static void broken_drop_padding(const bitcts_abi_tensor *t, uint64_t *strides)
{
    const uint32_t r = t->dimension_count;
    int permuted = 0;
    uint64_t reach = 0, elements = 1;
    for (uint32_t d = 0; d < r; ++d) {
        if (strides[d] == 0 && t->sizes[d] > 1) {
            return;
        }
        for (uint32_t e = d + 1; e < r; ++e) {
            permuted |= t->sizes[d] > 1 && t->sizes[e] > 1 && strides[d] < strides[e];
        }
        reach += (uint64_t)(t->sizes[d] - 1) * strides[d];
        elements *= t->sizes[d];
    }
    if (!permuted || reach + 1 <= elements) {
        return;
    }
    uint32_t done = 0; /* dims given their packed stride, innermost (smallest stride) first */
    uint64_t packed = 1;
    for (uint32_t k = 0; k < r; ++k) {
        uint32_t pick = r;
        for (uint32_t d = 0; d < r; ++d) {
            if (!(done >> d & 1u) && (pick == r || strides[d] < strides[pick])) {
                pick = d;
            }
        }
        done |= 1u << pick;
        strides[pick] = packed;
        packed *= t->sizes[pick];
    }
}

#endif
/* Validates a whole description and, when it is valid, fills the operator. */
static int32_t example_check_desc(example_instance *inst, const bitcts_abi_operator_desc *desc,
                                  example_operator *op)
{
    static const char *const roles[3] = {"A", "B", "Output"};
    if (desc == NULL || desc->struct_size < sizeof *desc) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_ARGUMENT, "desc", "struct",
                              "description missing or struct_size too small");
    }
    const uint32_t input_count = bitcts_dml_op_inputs(desc->operator_type);
    if (input_count == 0) {
        return example_refuse(inst, BITCTS_ABI_E_NOT_SUPPORTED, "desc", "unknown_operator",
                              "this plugin implements only the seven bitwise operators");
    }
    if (desc->input_count != input_count || desc->inputs == NULL) {
        return example_refuse(inst, BITCTS_ABI_E_INVALID_DESCRIPTOR, "desc", "input_count",
                              "the operator takes a different number of inputs");
    }
    const bitcts_abi_tensor *tensors[3] = {
        &desc->inputs[0], input_count == 2 ? &desc->inputs[1] : NULL, desc->output};
    memset(op, 0, sizeof *op);
    for (uint32_t t = 0; t < 3; ++t) {
        if (t == EX_TENSOR_B && input_count == 1) {
            continue; /* unary operators have no B */
        }
        const int is_output = t == EX_TENSOR_OUT;
        const char *role = t == EX_TENSOR_A && input_count == 1 ? "Input" : roles[t];
        int32_t status =
            example_check_tensor(inst, tensors[t], role, is_output, op->stride_bytes[t]);
        if (status == BITCTS_ABI_OK) {
            status = example_check_pair(inst, desc->operator_type, tensors[t], tensors[0], role,
                                        is_output);
        }
        if (status != BITCTS_ABI_OK) {
            return status;
        }
        op->width[t] = bitcts_dml_type_bytes(tensors[t]->data_type);
#if BUG != BUG_none
        op->total_bytes[t] = tensors[t]->total_tensor_size_in_bytes;
#endif
#if BUG == BUG_ignores_strides || BUG == BUG_zero_stride
        uint64_t packed = 1;
        for (uint32_t d = tensors[t]->dimension_count; d-- > 0;) {
            if (BUG == BUG_ignores_strides || op->stride_bytes[t][d] == 0) {
                op->stride_bytes[t][d] = packed;
            }
            packed *= tensors[t]->sizes[d];
        }
#endif
#if BUG == BUG_permuted_padded
        broken_drop_padding(tensors[t], op->stride_bytes[t]);
#endif
#if BUG == BUG_count_input_width
        if (is_output && desc->operator_type == BITCTS_OP_BIT_COUNT) {
            op->width[t] = op->width[EX_TENSOR_A];
        }
#endif
        for (uint32_t d = 0; d < tensors[t]->dimension_count; ++d) {
            op->stride_bytes[t][d] *= op->width[t];
        }
    }
    op->operator_type = desc->operator_type;
    op->input_count = input_count;
    op->rank = tensors[0]->dimension_count;
    op->elements = 1;
    for (uint32_t d = 0; d < op->rank; ++d) {
        op->sizes[d] = tensors[0]->sizes[d];
        op->elements *= op->sizes[d];
    }
#if BUG != BUG_none
    op->in_type = tensors[0]->data_type;
    op->out_type = tensors[EX_TENSOR_OUT]->data_type;
    op->valid = 1;
#endif
    return BITCTS_ABI_OK;
}

/* ---- execution ---- */

#if BUG != BUG_none
/* The float bugs act on the result before it is stored. */
static uint64_t broken_fixup_result(const example_operator *op, uint64_t r)
{
#if BUG == BUG_nan_canonicalise
    const int bitwise =
        op->operator_type == BITCTS_OP_BIT_AND || op->operator_type == BITCTS_OP_BIT_OR ||
        op->operator_type == BITCTS_OP_BIT_XOR || op->operator_type == BITCTS_OP_BIT_NOT;
    if (bitwise && op->out_type == BITCTS_DT_FLOAT32 && (r & 0x7F800000u) == 0x7F800000u &&
        (r & 0x007FFFFFu) != 0) {
        r = 0x7FC00000u;
    }
    if (bitwise && op->out_type == BITCTS_DT_FLOAT16 && (r & 0x7C00u) == 0x7C00u &&
        (r & 0x03FFu) != 0) {
        r = 0x7E00u;
    }
#elif BUG == BUG_fp16_denormal_flush
    if (op->out_type == BITCTS_DT_FLOAT16 && (r & 0x7C00u) == 0 && (r & 0x03FFu) != 0) {
        r &= 0x8000u;
    }
#else
    (void)op;
#endif
    return r;
}

/* Unlike the example, every access is checked against TotalTensorSizeInBytes, so a bug that
 * miscomputes offsets gives wrong bits (FAIL) rather than an overrun whose outcome depends on
 * the heap. A load outside the buffer reads 0; a store outside it is dropped. */
static uint64_t broken_load_checked(const example_operator *op, uint32_t t, const uint8_t *base,
                                    uint64_t offset)
{
    return offset + op->width[t] <= op->total_bytes[t] ? example_load(base + offset, op->width[t])
                                                       : 0;
}

static void broken_store_checked(const example_operator *op, uint8_t *out, uint64_t offset,
                                 uint64_t value)
{
    if (offset + op->width[EX_TENSOR_OUT] <= op->total_bytes[EX_TENSOR_OUT]) {
        example_store(out + offset, op->width[EX_TENSOR_OUT], broken_fixup_result(op, value));
    }
}
#endif
/* Visits every logical element once. Each element is read before its output is written, so
 * an output that aliases an input with the identical layout is computed correctly. */
static void example_run(const example_operator *op, const uint8_t *const base_in[2], uint8_t *out)
{
    const uint32_t bits = op->width[EX_TENSOR_A] * 8u;
    example_walk walk;
    example_walk_start(&walk, op->rank, op->sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->elements; ++e) {
#if BUG == BUG_skip_last_odd
        if ((op->elements & 1u) != 0 && e == op->elements - 1) {
            break;
        }
#endif
#if BUG != BUG_none
        const uint64_t a =
            broken_load_checked(op, EX_TENSOR_A, base_in[0], walk.offset[EX_TENSOR_A]);
#else
        const uint64_t a =
            example_load(base_in[0] + walk.offset[EX_TENSOR_A], op->width[EX_TENSOR_A]);
#endif
        uint64_t b = 0;
        if (op->input_count == 2) {
#if BUG != BUG_none
            b = broken_load_checked(op, EX_TENSOR_B, base_in[1], walk.offset[EX_TENSOR_B]);
#else
            b = example_load(base_in[1] + walk.offset[EX_TENSOR_B], op->width[EX_TENSOR_B]);
#endif
        }
#if BUG != BUG_none
        broken_store_checked(op, out, walk.offset[EX_TENSOR_OUT],
                             example_compute(op->operator_type, bits, a, b));
#else
        example_store(out + walk.offset[EX_TENSOR_OUT], op->width[EX_TENSOR_OUT],
                      example_compute(op->operator_type, bits, a, b));
#endif
        example_walk_next(&walk);
    }
}

#if BUG == BUG_broken_in_place
/* Writes ~0 into every output element, which an aliased input then reads back. */
static void broken_fill_ones(const example_operator *op, uint8_t *out)
{
    example_walk walk;
    example_walk_start(&walk, op->rank, op->sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->elements; ++e) {
        example_store(out + walk.offset[EX_TENSOR_OUT], op->width[EX_TENSOR_OUT], ~(uint64_t)0);
        example_walk_next(&walk);
    }
}
#endif
#if BUG == BUG_pad_write
/* Flips every byte inside the output's TotalTensorSizeInBytes that no element covers. */
static void broken_flip_padding(const example_operator *op, uint8_t *out)
{
    const uint64_t total = op->total_bytes[EX_TENSOR_OUT];
    uint8_t *covered = calloc((size_t)(total / 8 + 1), 1);
    if (covered == NULL) {
        return;
    }
    example_walk walk;
    example_walk_start(&walk, op->rank, op->sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->elements; ++e) {
        for (uint32_t i = 0; i < op->width[EX_TENSOR_OUT]; ++i) {
            const uint64_t at = walk.offset[EX_TENSOR_OUT] + i;
            covered[at >> 3] = (uint8_t)(covered[at >> 3] | (1u << (at & 7u)));
        }
        example_walk_next(&walk);
    }
    for (uint64_t at = 0; at < total; ++at) {
        if ((covered[at >> 3] & (1u << (at & 7u))) == 0) {
            out[at] = (uint8_t)~out[at];
        }
    }
    free(covered);
}
#endif
/* ---- the table's functions ---- */

static int32_t BITCTS_PLUGIN_CALL example_instance_create(const bitcts_abi_create_info *info,
                                                          void **out_instance)
{
    if (out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_instance = NULL;
    /* Options (PLG-9): "variant" = "scalar" is the only one; anything else fails. There is no
     * instance yet to hold the detail text, so it goes to the host's log. */
    if (info != NULL) {
        if (info->struct_size < sizeof *info ||
            (info->option_count > 0 &&
             (info->option_keys == NULL || info->option_values == NULL))) {
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        for (uint32_t i = 0; i < info->option_count; ++i) {
            const char *key = info->option_keys[i];
            const char *value = info->option_values[i];
            if (key == NULL || value == NULL || strcmp(key, "variant") != 0 ||
                strcmp(value, "scalar") != 0) {
                char message[200];
                snprintf(message, sizeof message,
                         "example: unknown option %s=%s (known: variant=scalar)",
                         key != NULL ? key : "(null)", value != NULL ? value : "(null)");
                example_log(BITCTS_ABI_LOG_ERROR, message);
                return BITCTS_ABI_E_INVALID_ARGUMENT;
            }
        }
    }
    example_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    *out_instance = inst;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL example_instance_destroy(void *instance)
{
    free(instance);
}

static const char *BITCTS_PLUGIN_CALL example_instance_last_error(void *instance)
{
    return instance != NULL ? ((example_instance *)instance)->last_error : "";
}

static int32_t BITCTS_PLUGIN_CALL example_query_caps(void *instance, bitcts_abi_caps *out)
{
    if (instance == NULL || out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    out->feature_level = BITCTS_FL_4_1;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL example_query_op_caps(void *instance, uint32_t operator_type,
                                                        bitcts_abi_op_caps *out)
{
    if (instance == NULL || out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (bitcts_dml_op_inputs(operator_type) == 0) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    out->operator_type = operator_type;
    out->input_types = bitcts_dml_op_input_types(operator_type);
    out->output_types = bitcts_dml_op_output_types(operator_type);
    out->dimension_counts = BITCTS_DIMS_1_TO_8;
    /* DirectML documents in-place execution for six of the seven; BIT_COUNT says nothing. */
    out->flags = operator_type == BITCTS_OP_BIT_COUNT ? 0u : BITCTS_ABI_CAP_IN_PLACE;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL example_operator_create(void *instance,
                                                          const bitcts_abi_operator_desc *desc,
                                                          void **out_operator)
{
    example_instance *inst = instance;
    if (inst == NULL || out_operator == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_operator = NULL;
    inst->last_error[0] = '\0';
    example_operator *op = calloc(1, sizeof *op);
    if (op == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
#if BUG == BUG_accepts_invalid || BUG == BUG_claims_fp64
    int32_t status = example_check_desc(inst, desc, op);
#else
    const int32_t status = example_check_desc(inst, desc, op);
#endif
#if BUG == BUG_accepts_invalid
    if (status == BITCTS_ABI_E_INVALID_DESCRIPTOR) {
        op->valid = 0;
        status = BITCTS_ABI_OK;
    }
#elif BUG == BUG_claims_fp64
    if (status == BITCTS_ABI_OK &&
        (op->in_type == BITCTS_DT_FLOAT64 || op->out_type == BITCTS_DT_FLOAT64)) {
        snprintf(inst->last_error, sizeof inst->last_error, "FLOAT64 is not supported");
        status = BITCTS_ABI_E_NOT_SUPPORTED;
    }
#endif
    if (status != BITCTS_ABI_OK) {
        free(op);
        return status;
    }
    *out_operator = op;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL example_operator_execute(void *instance, void *op,
                                                           const void *const *inputs, void *output)
{
    example_instance *inst = instance;
    const example_operator *oper = op;
    if (inst == NULL || oper == NULL || inputs == NULL || output == NULL || inputs[0] == NULL ||
        (oper->input_count == 2 && inputs[1] == NULL)) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
#if BUG == BUG_accepts_invalid
    if (!oper->valid) {
        return BITCTS_ABI_E_BACKEND_FAILED; /* created, but never run */
    }
#endif
#if BUG == BUG_crash_rank8
    if (oper->rank == 8) {
        raise(SIGSEGV);
        return BITCTS_ABI_E_BACKEND_FAILED;
    }
#elif BUG == BUG_hang
    if (oper->operator_type == BITCTS_OP_BIT_XOR && oper->in_type == BITCTS_DT_UINT16) {
        for (;;) {
            const struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
    }
#elif BUG == BUG_abort_count
    if (oper->operator_type == BITCTS_OP_BIT_COUNT) {
        abort();
    }
#elif BUG == BUG_broken_in_place
    if (output == inputs[0] || (oper->input_count == 2 && output == inputs[1])) {
        broken_fill_ones(oper, output);
    }
#elif BUG == BUG_writes_nothing
    return BITCTS_ABI_OK;
#endif
    const uint8_t *const base_in[2] = {inputs[0], oper->input_count == 2 ? inputs[1] : NULL};
    example_run(oper, base_in, output);
#if BUG == BUG_write_past_end
    uint8_t *past = (uint8_t *)output + oper->total_bytes[EX_TENSOR_OUT];
    for (uint32_t i = 0; i < oper->width[EX_TENSOR_OUT]; ++i) {
        past[i] = (uint8_t)~past[i];
    }
#elif BUG == BUG_corrupt_input
    uint8_t *a = (uint8_t *)(uintptr_t)inputs[0];
    a[0] = (uint8_t)~a[0];
#elif BUG == BUG_pad_write
    broken_flip_padding(oper, output);
#endif
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL example_operator_destroy(void *instance, void *op)
{
    (void)instance;
    free(op);
}

static const char *BITCTS_PLUGIN_CALL example_instance_info(void *instance, const char *key)
{
    if (instance == NULL || key == NULL) {
        return NULL;
    }
    return strcmp(key, "variant") == 0 ? "scalar" : NULL;
}

static void BITCTS_PLUGIN_CALL example_plugin_shutdown(void)
{
    example_host = NULL; /* no callback into the host after this returns */
}

static const void *BITCTS_PLUGIN_CALL example_get_extension(const char *name)
{
    (void)name;
    return NULL; /* no extensions */
}

static const bitcts_plugin_table example_table = {
    .struct_size = sizeof(bitcts_plugin_table),
#if BUG != BUG_none
    .name = "broken_" BROKEN_STR(BITCTS_BUG),
    .vendor = "bitcts project (test fixture)",
#else
    .name = "example",
    .vendor = "bitcts project",
#endif
    .version = "1.0.0",
#if BUG != BUG_none
    .build_id = "broken_plugin.c",
#else
    .build_id = "example_plugin.c",
#endif
    .instance_create = example_instance_create,
    .instance_destroy = example_instance_destroy,
    .instance_last_error = example_instance_last_error,
    .query_caps = example_query_caps,
    .query_op_caps = example_query_op_caps,
    .operator_create = example_operator_create,
    .operator_execute = example_operator_execute,
    .operator_destroy = example_operator_destroy,
    .instance_info = example_instance_info,
    .plugin_shutdown = example_plugin_shutdown,
    .get_extension = example_get_extension,
};

/* The one exported symbol (PLG-1). This plugin speaks ABI 1.0 only, so it accepts any host
 * whose range contains 1.0. */
BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    if (n == NULL || n->struct_size < sizeof *n) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (n->host_min_version > BITCTS_ABI_VERSION_1_0 ||
        n->host_max_version < BITCTS_ABI_VERSION_1_0) {
        return BITCTS_ABI_E_INCOMPATIBLE;
    }
    n->chosen_version = BITCTS_ABI_VERSION_1_0;
    n->table = &example_table;
    example_host = n->host;
    return BITCTS_ABI_OK;
}
