/* SPDX-License-Identifier: MIT */
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
    for (uint32_t t = 0; t < 3; ++t) { /* the walk steps in bytes */
        const bitcts_kit_tensor *k = &op->desc.tensors[t];
        for (uint32_t d = 0; d < op->desc.rank; ++d) {
            op->stride_bytes[t][d] = (uint64_t)k->strides[d] * k->width;
        }
    }
    return BITCTS_ABI_OK;
}

/* ---- execution ---- */

/* Visits every logical element once. Each element is read before its output is written, so
 * an output that aliases an input with the identical layout is computed correctly. */
static void example_run(const example_operator *op, const uint8_t *const base_in[2], uint8_t *out)
{
    const bitcts_kit_tensor *t = op->desc.tensors;
    const uint32_t bits = t[BITCTS_KIT_A].width * 8u;
    example_walk walk;
    example_walk_start(&walk, op->desc.rank, op->desc.sizes, 3, op->stride_bytes);
    for (uint64_t e = 0; e < op->desc.elements; ++e) {
        const uint64_t a =
            example_load(base_in[0] + walk.offset[BITCTS_KIT_A], t[BITCTS_KIT_A].width);
        uint64_t b = 0;
        if (op->desc.input_count == 2) {
            b = example_load(base_in[1] + walk.offset[BITCTS_KIT_B], t[BITCTS_KIT_B].width);
        }
        example_store(out + walk.offset[BITCTS_KIT_OUTPUT], t[BITCTS_KIT_OUTPUT].width,
                      example_compute(op->desc.operator_type, bits, a, b));
        example_walk_next(&walk);
    }
}

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
    const int32_t status = example_check_desc(inst, desc, op);
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
    const uint8_t *const base_in[2] = {inputs[0], oper->desc.input_count == 2 ? inputs[1] : NULL};
    example_run(oper, base_in, output);
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
    .name = "example",
    .vendor = "bitcts project",
    .version = "1.0.0",
    .build_id = "example_plugin.c",
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
