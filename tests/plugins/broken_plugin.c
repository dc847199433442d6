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
#define BUG_read_past_end 19      /* the last element reads A (Input) one element past its own */
#define BUG_broadcast_packed_output 20 /* an input broadcast: the output written packed */
#define BUG_padded_under_packed 21     /* the output packed: padded inputs read as packed */
#define BROKEN_ID_(name) BUG_##name
#define BROKEN_ID(name) BROKEN_ID_(name)
#define BROKEN_STR_(name) #name
#define BROKEN_STR(name) BROKEN_STR_(name)
#define BUG BROKEN_ID(BITCTS_BUG)
#if !defined(BITCTS_BUG) || BUG < 1 || BUG > 21
#error "define BITCTS_BUG as one of the BUG_<name> names above"
#endif
/* BUG-DEFINITIONS-END */
/* The bitcts example plugin: a small, portable and obviously correct implementation of the seven
 * DirectML bitwise operators behind the plugin ABI, written to be copied. The SDK's backend kit
 * negotiates, fills the capability records and validates operator descriptions the way DirectML
 * does; the plugin walks tensors with an odometer, one element at a time. It builds against the
 * installed SDK alone (docs/plugin-abi.md walks through it). */
#include <stddef.h> /* size_t */
#include <stdint.h> /* fixed-width integers */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_backend_kit.h" /* validation, negotiation; includes the ABI */

typedef struct example_instance {
    char last_error[256];
} example_instance;

/* A validated operator: the kit's copy of the description (shape, types, element widths and
 * strides, tensors in the order BITCTS_KIT_A, BITCTS_KIT_B, BITCTS_KIT_OUTPUT), and per tensor
 * its strides in bytes. */
typedef struct example_operator {
    bitcts_kit_op desc;
    uint64_t stride_bytes[3][BITCTS_MAX_DIMS]; /* element strides times width */
#if BUG != BUG_none
    int valid; /* 0 for an operator that accepts_invalid created from an invalid description */
#endif
} example_operator;

/* The host's services, retained from negotiation until plugin_shutdown. */
static const bitcts_abi_host *example_host;

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

#if BUG == BUG_permuted_padded
/* A shape the case plan lacks: strides out of order (a permutation) and larger than packed in
 * their own order (padding), no broadcast. Such a tensor's strides become packed ones in the
 * same order: the padding is dropped. */
static void broken_drop_padding(uint32_t r, const uint32_t *sizes, uint32_t *strides)
{
    int permuted = 0;
    uint64_t reach = 0, elements = 1;
    for (uint32_t d = 0; d < r; ++d) {
        if (strides[d] == 0 && sizes[d] > 1) {
            return;
        }
        for (uint32_t e = d + 1; e < r; ++e) {
            permuted |= sizes[d] > 1 && sizes[e] > 1 && strides[d] < strides[e];
        }
        reach += (uint64_t)(sizes[d] - 1) * strides[d];
        elements *= sizes[d];
    }
    if (!permuted || reach + 1 <= elements) {
        return;
    }
    uint32_t done = 0; /* dims given their packed stride, innermost (smallest stride) first */
    uint32_t packed = 1;
    for (uint32_t k = 0; k < r; ++k) {
        uint32_t pick = r;
        for (uint32_t d = 0; d < r; ++d) {
            if (!(done >> d & 1u) && (pick == r || strides[d] < strides[pick])) {
                pick = d;
            }
        }
        done |= 1u << pick;
        strides[pick] = packed;
        packed *= sizes[pick];
    }
}

#endif
#if BUG == BUG_broadcast_packed_output || BUG == BUG_padded_under_packed
/* Fast paths that decide from one tensor's layout how another is laid out, right whenever
 * every tensor of a case has the same kind of layout. */
static void broken_packed_strides(const bitcts_kit_op *d, uint32_t *strides)
{
    uint32_t packed = 1;
    for (uint32_t k = d->rank; k-- > 0;) {
        strides[k] = packed;
        packed *= d->sizes[k];
    }
}

#endif
#if BUG == BUG_broadcast_packed_output
/* A broadcast fast path: any input with a zero stride, and the output is written with packed
 * strides, whatever its own are. */
static void broken_mixed_layouts(bitcts_kit_op *d)
{
    for (uint32_t i = 0; i < d->input_count; ++i) {
        for (uint32_t k = 0; k < d->rank; ++k) {
            if (d->tensors[i].strides[k] == 0) {
                broken_packed_strides(d, d->tensors[BITCTS_KIT_OUTPUT].strides);
                return;
            }
        }
    }
}

#elif BUG == BUG_padded_under_packed
/* 1 when the dims of size > 1 have their packed strides. */
static int broken_is_packed(const bitcts_kit_op *d, const uint32_t *strides)
{
    uint32_t packed[BITCTS_MAX_DIMS];
    broken_packed_strides(d, packed);
    for (uint32_t k = 0; k < d->rank; ++k) {
        if (d->sizes[k] > 1 && strides[k] != packed[k]) {
            return 0;
        }
    }
    return 1;
}

/* 1 for strides in logical order, none zero, not packed: a padded layout. */
static int broken_is_padded(const bitcts_kit_op *d, const uint32_t *strides)
{
    uint32_t last = UINT32_MAX;
    for (uint32_t k = 0; k < d->rank; ++k) {
        if (d->sizes[k] > 1) {
            if (strides[k] == 0 || strides[k] > last) {
                return 0;
            }
            last = strides[k];
        }
    }
    return !broken_is_packed(d, strides);
}

/* The output packed: a padded input is read as if it were packed too. */
static void broken_mixed_layouts(bitcts_kit_op *d)
{
    if (!broken_is_packed(d, d->tensors[BITCTS_KIT_OUTPUT].strides)) {
        return;
    }
    for (uint32_t i = 0; i < d->input_count; ++i) {
        if (broken_is_padded(d, d->tensors[i].strides)) {
            broken_packed_strides(d, d->tensors[i].strides);
        }
    }
}

#endif
/* ---- validation of a description, like DirectML's CreateOperator ---- */

/* Validates a description with the kit (every rule of docs/spec/validation.md, in its order;
 * a refusal names the rule in last_error) and, when it is valid, fills the operator. */
static int32_t example_check_desc(example_instance *inst, const bitcts_abi_operator_desc *desc,
                                  example_operator *op)
{
    memset(op, 0, sizeof *op);
    const int32_t status =
        bitcts_kit_validate_op(desc, &op->desc, inst->last_error, sizeof inst->last_error);
    if (status != BITCTS_ABI_OK) {
        return status;
    }
#if BUG == BUG_broadcast_packed_output || BUG == BUG_padded_under_packed
    broken_mixed_layouts(&op->desc);
#endif
    for (uint32_t t = 0; t < 3; ++t) { /* the walk steps in bytes */
        const bitcts_kit_tensor *k = &op->desc.tensors[t];
#if BUG == BUG_ignores_strides || BUG == BUG_zero_stride
        uint32_t packed = 1;
        for (uint32_t d = op->desc.rank; d-- > 0;) {
            if (BUG == BUG_ignores_strides || op->desc.tensors[t].strides[d] == 0) {
                op->desc.tensors[t].strides[d] = packed;
            }
            packed *= op->desc.sizes[d];
        }
#endif
#if BUG == BUG_permuted_padded
        broken_drop_padding(op->desc.rank, op->desc.sizes, op->desc.tensors[t].strides);
#endif
#if BUG == BUG_count_input_width
        if (t == BITCTS_KIT_OUTPUT && op->desc.operator_type == BITCTS_OP_BIT_COUNT) {
            op->desc.tensors[t].width = op->desc.tensors[BITCTS_KIT_A].width;
        }
#endif
        for (uint32_t d = 0; d < op->desc.rank; ++d) {
            op->stride_bytes[t][d] = (uint64_t)k->strides[d] * k->width;
        }
    }
#if BUG != BUG_none
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
    const uint32_t type = op->desc.operator_type;
    const int bitwise = type == BITCTS_OP_BIT_AND || type == BITCTS_OP_BIT_OR ||
                        type == BITCTS_OP_BIT_XOR || type == BITCTS_OP_BIT_NOT;
    const uint32_t out_type = op->desc.tensors[BITCTS_KIT_OUTPUT].data_type;
    if (bitwise && out_type == BITCTS_DT_FLOAT32 && (r & 0x7F800000u) == 0x7F800000u &&
        (r & 0x007FFFFFu) != 0) {
        r = 0x7FC00000u;
    }
    if (bitwise && out_type == BITCTS_DT_FLOAT16 && (r & 0x7C00u) == 0x7C00u &&
        (r & 0x03FFu) != 0) {
        r = 0x7E00u;
    }
#elif BUG == BUG_fp16_denormal_flush
    if (op->desc.tensors[BITCTS_KIT_OUTPUT].data_type == BITCTS_DT_FLOAT16 && (r & 0x7C00u) == 0 &&
        (r & 0x03FFu) != 0) {
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
    const bitcts_kit_tensor *k = &op->desc.tensors[t];
    return offset + k->width <= k->total_bytes ? example_load(base + offset, k->width) : 0;
}

static void broken_store_checked(const example_operator *op, uint8_t *out, uint64_t offset,
                                 uint64_t value)
{
    const bitcts_kit_tensor *k = &op->desc.tensors[BITCTS_KIT_OUTPUT];
    if (offset + k->width <= k->total_bytes) {
        example_store(out + offset, k->width, broken_fixup_result(op, value));
    }
}
#endif
/* Visits every logical element once. Each element is read before its output is written, so
 * an output that aliases an input with the identical layout is computed correctly. */
static void example_run(const example_operator *op, const uint8_t *const base_in[2], uint8_t *out)
{
    const bitcts_kit_tensor *t = op->desc.tensors;
    const uint32_t bits = t[BITCTS_KIT_A].width * 8u;
    example_walk walk;
    example_walk_start(&walk, op->desc.rank, op->desc.sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->desc.elements; ++e) {
#if BUG == BUG_skip_last_odd
        if ((op->desc.elements & 1u) != 0 && e == op->desc.elements - 1) {
            break;
        }
#endif
#if BUG == BUG_read_past_end
        /* An off-by-one in the tail, unchecked: a packed A's last element is the last in its
         * buffer, so the load reads the element-width bytes right after the buffer. */
        const uint64_t past = e == op->desc.elements - 1 ? t[BITCTS_KIT_A].width : 0;
        const uint64_t a =
            example_load(base_in[0] + walk.offset[BITCTS_KIT_A] + past, t[BITCTS_KIT_A].width);
#elif BUG != BUG_none
        const uint64_t a =
            broken_load_checked(op, BITCTS_KIT_A, base_in[0], walk.offset[BITCTS_KIT_A]);
#else
        const uint64_t a =
            example_load(base_in[0] + walk.offset[BITCTS_KIT_A], t[BITCTS_KIT_A].width);
#endif
        uint64_t b = 0;
        if (op->desc.input_count == 2) {
#if BUG != BUG_none
            b = broken_load_checked(op, BITCTS_KIT_B, base_in[1], walk.offset[BITCTS_KIT_B]);
#else
            b = example_load(base_in[1] + walk.offset[BITCTS_KIT_B], t[BITCTS_KIT_B].width);
#endif
        }
#if BUG != BUG_none
        broken_store_checked(op, out, walk.offset[BITCTS_KIT_OUTPUT],
                             example_compute(op->desc.operator_type, bits, a, b));
#else
        example_store(out + walk.offset[BITCTS_KIT_OUTPUT], t[BITCTS_KIT_OUTPUT].width,
                      example_compute(op->desc.operator_type, bits, a, b));
#endif
        example_walk_next(&walk);
    }
}

#if BUG == BUG_broken_in_place
/* Writes ~0 into every output element, which an aliased input then reads back. */
static void broken_fill_ones(const example_operator *op, uint8_t *out)
{
    const uint32_t width = op->desc.tensors[BITCTS_KIT_OUTPUT].width;
    example_walk walk;
    example_walk_start(&walk, op->desc.rank, op->desc.sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->desc.elements; ++e) {
        example_store(out + walk.offset[BITCTS_KIT_OUTPUT], width, ~(uint64_t)0);
        example_walk_next(&walk);
    }
}
#endif
#if BUG == BUG_pad_write
/* Flips every byte inside the output's TotalTensorSizeInBytes that no element covers. */
static void broken_flip_padding(const example_operator *op, uint8_t *out)
{
    const uint64_t total = op->desc.tensors[BITCTS_KIT_OUTPUT].total_bytes;
    const uint32_t width = op->desc.tensors[BITCTS_KIT_OUTPUT].width;
    uint8_t *covered = calloc((size_t)(total / 8 + 1), 1);
    if (covered == NULL) {
        return;
    }
    example_walk walk;
    example_walk_start(&walk, op->desc.rank, op->desc.sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->desc.elements; ++e) {
        for (uint32_t i = 0; i < width; ++i) {
            const uint64_t at = walk.offset[BITCTS_KIT_OUTPUT] + i;
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
                bitcts_kit_host_log(example_host, BITCTS_ABI_LOG_ERROR, message);
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
    return instance != NULL ? bitcts_kit_caps_fill(out, BITCTS_FL_4_1)
                            : BITCTS_ABI_E_INVALID_ARGUMENT;
}

/* Everything DirectML documents: the types of FL 4_1, ranks 1 to 8, in place for six of the
 * seven (BIT_COUNT's page says nothing about it). */
static int32_t BITCTS_PLUGIN_CALL example_query_op_caps(void *instance, uint32_t operator_type,
                                                        bitcts_abi_op_caps *out)
{
    return instance != NULL ? bitcts_kit_op_caps_fill(out, operator_type)
                            : BITCTS_ABI_E_INVALID_ARGUMENT;
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
        (op->desc.tensors[BITCTS_KIT_A].data_type == BITCTS_DT_FLOAT64 ||
         op->desc.tensors[BITCTS_KIT_OUTPUT].data_type == BITCTS_DT_FLOAT64)) {
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
    if (inst == NULL || oper == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    /* No NULL buffer; an input is the output's very buffer (in place) or apart from it. */
    const int32_t status = bitcts_kit_check_buffers(&oper->desc, inputs, output, inst->last_error,
                                                    sizeof inst->last_error);
    if (status != BITCTS_ABI_OK) {
        return status;
    }
#if BUG == BUG_accepts_invalid
    if (!oper->valid) {
        return BITCTS_ABI_E_BACKEND_FAILED; /* created, but never run */
    }
#endif
#if BUG == BUG_crash_rank8
    if (oper->desc.rank == 8) {
        raise(SIGSEGV);
        return BITCTS_ABI_E_BACKEND_FAILED;
    }
#elif BUG == BUG_hang
    if (oper->desc.operator_type == BITCTS_OP_BIT_XOR &&
        oper->desc.tensors[BITCTS_KIT_A].data_type == BITCTS_DT_UINT16) {
        for (;;) {
            const struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
    }
#elif BUG == BUG_abort_count
    if (oper->desc.operator_type == BITCTS_OP_BIT_COUNT) {
        abort();
    }
#elif BUG == BUG_broken_in_place
    if (output == inputs[0] || (oper->desc.input_count == 2 && output == inputs[1])) {
        broken_fill_ones(oper, output);
    }
#elif BUG == BUG_writes_nothing
    return BITCTS_ABI_OK;
#endif
    const uint8_t *const base_in[2] = {inputs[0], oper->desc.input_count == 2 ? inputs[1] : NULL};
    example_run(oper, base_in, output);
#if BUG == BUG_write_past_end
    const bitcts_kit_tensor *o = &oper->desc.tensors[BITCTS_KIT_OUTPUT];
    uint8_t *past = (uint8_t *)output + o->total_bytes;
    for (uint32_t i = 0; i < o->width; ++i) {
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

/* The one exported symbol (PLG-1). The kit accepts any host whose range meets the SDK's
 * (1.0 up to the minor of the SDK the plugin is built with) and keeps the host's services. */
BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    return bitcts_kit_negotiate(n, &example_table, &example_host);
}
