/* SPDX-License-Identifier: MIT */
/* The smallest well-formed bitcts plugin, built out of tree against the installed plugin SDK
 * (tests/consumer/CMakeLists.txt). It negotiates through the backend kit, fills every mandatory
 * slot and supports no operator; and it uses every name the SDK declares
 * (tests/consumer/sdk_names.py checks that), which proves that the installed headers are
 * self-contained and define all they declare: a name declared but not defined would fail to
 * link with --no-undefined. */
#include <bitcts/bitcts_backend_kit.h> /* the kit; includes the ABI, bitcts_dml.h, bitcts_status.h */
#include <bitcts/bitcts_verdict.h>     /* the verdict list */
#include <bitcts/bitcts_version.h>     /* the suite's version */

static int consumer_instance;
/* The tour's result, kept so that the compiler must evaluate every name it uses. */
static volatile uint32_t consumer_tour;

/* ---- a tour of the SDK: every list, constant and helper, folded into one number ---- */

#define CONSUMER_TYPE(name, value, bytes, is_float, is_signed, text)                               \
    sum = sum * 31u + (uint32_t)(value) + bitcts_dml_type_bytes(value) + (uint32_t)(bytes) +       \
          (uint32_t)(is_float) + (uint32_t)(is_signed) + (uint32_t)sizeof(text);
#define CONSUMER_OP(name, value, inputs, text)                                                     \
    sum = sum * 31u + (uint32_t)(value) + (uint32_t)(inputs) + (uint32_t)sizeof(text) +            \
          bitcts_dml_op_inputs(value) + bitcts_dml_op_input_types(value) +                         \
          bitcts_dml_op_output_types(value);
#define CONSUMER_FL(name, value) sum = sum * 31u + (uint32_t)(value);
#define CONSUMER_STATUS(name, value, message)                                                      \
    sum = sum * 31u + (uint32_t)(name) + (uint32_t)sizeof(message) +                               \
          (uint32_t)bitcts_status_name(value)[0] + (uint32_t)bitcts_status_message(value)[0];
#define CONSUMER_VERDICT(name, value, text, failure, rank, healthy)                                \
    sum = sum * 31u + (uint32_t)BITCTS_VERDICT_##name + (uint32_t)bitcts_verdict_parse(text) +     \
          (uint32_t)bitcts_verdict_is_failure(value) +                                             \
          (uint32_t)(bitcts_verdict_rank(value) + 1) +                                             \
          (uint32_t)bitcts_verdict_is_healthy(value) + (uint32_t)bitcts_verdict_name(value)[0] +   \
          (uint32_t)(failure) + (uint32_t)((rank) + 1) + (uint32_t)(healthy);

BITCTS_ABI_STATIC_ASSERT(BITCTS_VERDICT_COUNT == 14, "fourteen verdicts in report schema 1.2");

/* A status the caller must use. */
static BITCTS_NODISCARD bitcts_status consumer_status_ok(void)
{
    return BITCTS_OK;
}

/* A printf-like refusal through the status header's detail writer. */
static int consumer_fail(char *err, size_t cap, const char *fmt, ...) BITCTS_PRINTF(3, 4);

static int consumer_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int st = bitcts_status_vfail(err, cap, BITCTS_E_INVALID_ARGUMENT, fmt, ap);
    va_end(ap);
    return st + bitcts_status_fail(err, cap, BITCTS_OK, "tour: %d", st);
}

static uint32_t consumer_sdk_tour(void)
{
    uint32_t sum = 0;
    BITCTS_DML_DATA_TYPE_LIST(CONSUMER_TYPE)
    BITCTS_DML_OPERATOR_LIST(CONSUMER_OP)
    BITCTS_DML_FEATURE_LEVEL_LIST(CONSUMER_FL)
    BITCTS_STATUS_LIST(CONSUMER_STATUS)
    BITCTS_VERDICT_LIST(CONSUMER_VERDICT)
    const uint32_t types[] = {BITCTS_DT_UNKNOWN, BITCTS_DT_FLOAT32, BITCTS_DT_FLOAT16,
                              BITCTS_DT_UINT32,  BITCTS_DT_UINT16,  BITCTS_DT_UINT8,
                              BITCTS_DT_INT32,   BITCTS_DT_INT16,   BITCTS_DT_INT8,
                              BITCTS_DT_FLOAT64, BITCTS_DT_UINT64,  BITCTS_DT_INT64,
                              BITCTS_DT_COUNT};
    const uint32_t ops[] = {
        BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_OP_BIT_AND,   BITCTS_OP_BIT_OR,
        BITCTS_OP_BIT_XOR,        BITCTS_OP_BIT_NOT,         BITCTS_OP_BIT_COUNT, BITCTS_OP_COUNT};
    const uint32_t levels[] = {BITCTS_FL_1_0, BITCTS_FL_2_0, BITCTS_FL_2_1,
                               BITCTS_FL_3_0, BITCTS_FL_3_1, BITCTS_FL_4_0,
                               BITCTS_FL_4_1, BITCTS_FL_5_0, BITCTS_FL_6_4};
    const uint32_t masks[] = {BITCTS_DT_BIT(BITCTS_DT_UINT8),
                              BITCTS_DT_MASK_ALL,
                              BITCTS_DT_MASK_SMALL_UNSIGNED,
                              BITCTS_DT_MASK_UNSIGNED,
                              BITCTS_DT_MASK_COUNT_OUTPUT,
                              BITCTS_DIMS_1_TO_8,
                              BITCTS_MAX_DIMS,
                              BITCTS_TENSOR_FLAG_NONE,
                              BITCTS_TENSOR_FLAG_OWNED_BY_DML,
                              BITCTS_TENSOR_FLAGS_KNOWN};
    const int32_t codes[] = {BITCTS_ABI_OK,
                             BITCTS_ABI_E_INVALID_ARGUMENT,
                             BITCTS_ABI_E_OUT_OF_MEMORY,
                             BITCTS_ABI_E_INVALID_DESCRIPTOR,
                             BITCTS_ABI_E_NOT_SUPPORTED,
                             BITCTS_ABI_E_BACKEND_FAILED,
                             BITCTS_ABI_E_DEVICE,
                             BITCTS_ABI_E_INCOMPATIBLE,
                             BITCTS_ABI_LOG_ERROR,
                             BITCTS_ABI_LOG_WARN,
                             BITCTS_ABI_LOG_INFO,
                             BITCTS_ABI_LOG_DEBUG,
                             BITCTS_VERSION_MAJOR,
                             BITCTS_VERSION_MINOR,
                             BITCTS_VERSION_PATCH};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
        sum = sum * 31u + types[i];
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
        sum = sum * 31u + ops[i];
    }
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; ++i) {
        sum = sum * 31u + levels[i];
    }
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; ++i) {
        sum = sum * 31u + masks[i];
    }
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
        sum = sum * 31u + (uint32_t)codes[i];
    }
    const bitcts_status ok = consumer_status_ok();
    const bitcts_verdict pass = BITCTS_VERDICT_PASS;
    sum = sum * 31u + (uint32_t)ok + (uint32_t)pass + (uint32_t)(BITCTS_MAX_ELEMENTS >> 16);
    sum = sum * 31u + BITCTS_ABI_MAJOR(BITCTS_ABI_VERSION_CURRENT) +
          BITCTS_ABI_MINOR(BITCTS_ABI_VERSION(1, 0)) + BITCTS_ABI_VERSION_1_0 +
          (uint32_t)sizeof(BITCTS_VERSION_STRING) + (uint32_t)sizeof(BITCTS_PLUGIN_ENTRY_NAME) +
          (uint32_t)sizeof(BITCTS_ABI_EXT_STREAM) + (uint32_t)sizeof(BITCTS_ABI_EXT_DEVICE_TIMING) +
          (uint32_t)sizeof(BITCTS_ABI_EXT_BATCH_EXECUTE) + BITCTS_ABI_COPY_API +
          BITCTS_ABI_COPY_KERNEL + BITCTS_ABI_CAP_IN_PLACE;
    sum =
        sum * 31u +
        (uint32_t)(sizeof(bitcts_abi_tensor) + sizeof(bitcts_abi_operator_desc) +
                   sizeof(bitcts_abi_op_caps) + sizeof(bitcts_abi_caps) + sizeof(bitcts_abi_host) +
                   sizeof(bitcts_abi_create_info) + sizeof(bitcts_abi_stream_ext) +
                   sizeof(bitcts_plugin_table) + sizeof(bitcts_abi_device_timing_ext) +
                   sizeof(bitcts_abi_batch_ext) + sizeof(bitcts_abi_batch_item) +
                   sizeof(bitcts_plugin_negotiation) + sizeof(bitcts_plugin_negotiate_fn));
    return sum;
}

/* The kit's steps one by one on a small description (an XOR of 2x3 UINT8 whose output is
 * transposed), then as one call, and the buffers of an execution in place. */
static uint32_t consumer_kit_tour(void)
{
    static const uint32_t sizes[2] = {2, 3};
    static const uint32_t transposed[2] = {1, 2};
    bitcts_abi_tensor t[3];
    for (uint32_t k = 0; k < 3; ++k) {
        const bitcts_abi_tensor one = {sizeof one, BITCTS_DT_UINT8, 0, 2, sizes, NULL, 8, 0, 0};
        t[k] = one;
    }
    t[BITCTS_KIT_OUTPUT].strides = transposed;
    const bitcts_abi_operator_desc desc = {sizeof desc, BITCTS_OP_BIT_XOR,    2, 0,
                                           t,           &t[BITCTS_KIT_OUTPUT]};
    char err[128] = "";
    uint64_t bytes = 0;
    int hit = 0;
    int32_t sum = bitcts_kit_check_tensor(&t[BITCTS_KIT_A], bitcts_kit_role_name(2, BITCTS_KIT_A),
                                          0, err, sizeof err);
    sum += bitcts_kit_check_pair(BITCTS_OP_BIT_XOR, &t[BITCTS_KIT_B], "B", 0, &t[BITCTS_KIT_A], "A",
                                 err, sizeof err);
    sum += bitcts_kit_check_types(BITCTS_OP_BIT_XOR, &t[BITCTS_KIT_A], "A", &t[BITCTS_KIT_OUTPUT],
                                  err, sizeof err);
    sum += bitcts_kit_check_size(&t[BITCTS_KIT_OUTPUT], "Output", err, sizeof err);
    sum += bitcts_kit_check_output_layout(&t[BITCTS_KIT_OUTPUT], err, sizeof err);
    sum += bitcts_kit_calc_buffer_size(&t[BITCTS_KIT_OUTPUT], &bytes);
    sum +=
        bitcts_kit_overlap_exact(&t[BITCTS_KIT_OUTPUT], BITCTS_KIT_OVERLAP_BITMAP_SPAN >> 24, &hit);
    bitcts_kit_op op;
    sum += bitcts_kit_validate_op(&desc, &op, err, sizeof err);
    bitcts_kit_op_fill(&desc, &op);
    const bitcts_kit_tensor *b = &op.tensors[BITCTS_KIT_B];
    const void *in_place[2] = {&op, &op}; /* refused: the output is transposed, A is not */
    sum += bitcts_kit_check_buffers(&op, in_place, &op, err, sizeof err);
    sum += bitcts_kit_refuse(err, sizeof err, BITCTS_ABI_OK, "tour: %u", 1u);
    sum += (uint32_t)consumer_fail(err, sizeof err, "tour: %u", 2u);
    bitcts_kit_host_log(NULL, BITCTS_ABI_LOG_DEBUG, err);
    return (uint32_t)sum + (uint32_t)bytes + (uint32_t)hit + b->width +
           (uint32_t)bitcts_kit_may_alias(&op, BITCTS_KIT_A);
}

/* ---- the plugin ---- */

static int32_t BITCTS_PLUGIN_CALL consumer_instance_create(const bitcts_abi_create_info *info,
                                                           void **out_instance)
{
    if (out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (info != NULL && info->option_count > 0) {
        return BITCTS_ABI_E_INVALID_ARGUMENT; /* knows no option (PLG-9) */
    }
    *out_instance = &consumer_instance;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL consumer_instance_destroy(void *instance)
{
    (void)instance;
}

static int32_t BITCTS_PLUGIN_CALL consumer_query_caps(void *instance, bitcts_abi_caps *out)
{
    (void)instance;
    return bitcts_kit_caps_fill(out, 0); /* claims nothing, so nothing is required of it */
}

static int32_t BITCTS_PLUGIN_CALL consumer_query_op_caps(void *instance, uint32_t operator_type,
                                                         bitcts_abi_op_caps *out)
{
    (void)instance;
    bitcts_abi_op_caps documented = {sizeof documented, 0, 0, 0, 0, 0};
    consumer_tour += (uint32_t)bitcts_kit_op_caps_fill(&documented, operator_type);
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED; /* none of them here */
}

static int32_t BITCTS_PLUGIN_CALL consumer_operator_create(void *instance,
                                                           const bitcts_abi_operator_desc *desc,
                                                           void **out_operator)
{
    (void)instance;
    (void)desc;
    if (out_operator != NULL) {
        *out_operator = NULL;
    }
    return BITCTS_ABI_E_NOT_SUPPORTED;
}

static int32_t BITCTS_PLUGIN_CALL consumer_operator_execute(void *instance, void *op,
                                                            const void *const *inputs, void *output)
{
    (void)instance;
    (void)op;
    (void)inputs;
    (void)output;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}

static void BITCTS_PLUGIN_CALL consumer_operator_destroy(void *instance, void *op)
{
    (void)instance;
    (void)op;
}

static const bitcts_plugin_table consumer_table = {
    .struct_size = sizeof(bitcts_plugin_table),
    .name = "consumer",
    .vendor = "bitcts project (consumer test)",
    .version = "0",
    .build_id = "consumer_plugin.c",
    .instance_create = consumer_instance_create,
    .instance_destroy = consumer_instance_destroy,
    .query_caps = consumer_query_caps,
    .query_op_caps = consumer_query_op_caps,
    .operator_create = consumer_operator_create,
    .operator_execute = consumer_operator_execute,
    .operator_destroy = consumer_operator_destroy,
};

BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    consumer_tour = consumer_sdk_tour() + consumer_kit_tour();
    return bitcts_kit_negotiate(n, &consumer_table, NULL);
}
