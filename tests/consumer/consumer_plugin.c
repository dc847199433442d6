/* SPDX-License-Identifier: MIT */
/* The smallest well-formed bitcts plugin, built out of tree against the installed plugin SDK
 * (tests/consumer/CMakeLists.txt). It negotiates ABI 1.0, fills every mandatory slot and
 * supports no operator, which proves that the installed header is self-contained. */
#include <bitcts/bitcts_plugin.h> /* the ABI, from the installed package */

static int consumer_instance;

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
    if (out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    out->feature_level = 0; /* claims nothing, so nothing is required of it */
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL consumer_query_op_caps(void *instance, uint32_t operator_type,
                                                         bitcts_abi_op_caps *out)
{
    (void)instance;
    (void)operator_type;
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED;
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
    if (n == NULL || n->struct_size < sizeof *n) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (n->host_min_version > BITCTS_ABI_VERSION_1_0 ||
        n->host_max_version < BITCTS_ABI_VERSION_1_0) {
        return BITCTS_ABI_E_INCOMPATIBLE;
    }
    n->chosen_version = BITCTS_ABI_VERSION_1_0;
    n->table = &consumer_table;
    return BITCTS_ABI_OK;
}
