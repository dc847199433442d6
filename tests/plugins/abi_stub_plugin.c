/* SPDX-License-Identifier: MIT */
/* ABI-level stub plugins for tests/unit/plugin_host_test.c: each build (-DSTUB=<name>) breaks
 * one negotiation or table rule of docs/plugin-abi.md, or (newer_minor) exercises one the host
 * must tolerate. The stubs implement no operator: every operator query is NOT_SUPPORTED. */
#include <stddef.h> /* NULL */
#include <stdint.h> /* int32_t, uint32_t */

#include "bitcts/bitcts_plugin.h" /* the ABI */

/* The stubs; STUB_THIS is the number of the one compiled in. */
#define STUB_wrong_major 1    /* chooses 2.0 and returns OK (a buggy plugin) */
#define STUB_refuses 2        /* speaks only 2.0 and correctly returns INCOMPATIBLE */
#define STUB_minor_too_new 3  /* chooses 1.1 although the host speaks at most 1.0 */
#define STUB_newer_minor 4    /* speaks 1.0-1.1, table with one extra trailing slot: loads */
#define STUB_missing_symbol 5 /* exports bitcts_plugin_negotiate_v1 instead of the entry */
#define STUB_null_execute 6   /* operator_execute is NULL */
#define STUB_null_name 7      /* name is NULL */
#define STUB_tiny_table 8     /* struct_size ends before operator_execute */
#define STUB_huge_table 9     /* struct_size 1 MiB */
#define STUB_null_table 10    /* returns OK without a table */
#define STUB_fails 11         /* negotiate returns OUT_OF_MEMORY */
#define STUB_ID_(name) STUB_##name
#define STUB_ID(name) STUB_ID_(name)
#define STUB_STR_(name) #name
#define STUB_STR(name) STUB_STR_(name)
#define STUB_THIS STUB_ID(STUB)
#if !defined(STUB) || STUB_THIS < 1 || STUB_THIS > 11
#error "define STUB as one of the STUB_<name> names above"
#endif

static int stub_instance_storage;

static int32_t BITCTS_PLUGIN_CALL stub_instance_create(const bitcts_abi_create_info *info,
                                                       void **out_instance)
{
    (void)info;
    if (out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_instance = &stub_instance_storage;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL stub_instance_destroy(void *instance)
{
    (void)instance;
}

static int32_t BITCTS_PLUGIN_CALL stub_query_caps(void *instance, bitcts_abi_caps *out)
{
    (void)instance;
    if (out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    out->feature_level = 0; /* claims no feature level: nothing is required of it */
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL stub_query_op_caps(void *instance, uint32_t operator_type,
                                                     bitcts_abi_op_caps *out)
{
    (void)instance;
    (void)operator_type;
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}

static int32_t BITCTS_PLUGIN_CALL stub_operator_create(void *instance,
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

#if STUB_THIS != STUB_null_execute
static int32_t BITCTS_PLUGIN_CALL stub_operator_execute(void *instance, void *op,
                                                        const void *const *inputs, void *output)
{
    (void)instance;
    (void)op;
    (void)inputs;
    (void)output;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
#endif

static void BITCTS_PLUGIN_CALL stub_operator_destroy(void *instance, void *op)
{
    (void)instance;
    (void)op;
}

static const void *BITCTS_PLUGIN_CALL stub_future_slot(const char *name)
{
    (void)name;
    return NULL;
}

/* A table as a later minor version could define it: 1.0's table plus one appended slot. */
typedef struct stub_table_1_1 {
    bitcts_plugin_table base;
    const void *(BITCTS_PLUGIN_CALL *future_slot)(const char *name);
} stub_table_1_1;

static const stub_table_1_1 stub_table = {
    .base =
        {
#if STUB_THIS == STUB_newer_minor
            .struct_size = sizeof(stub_table_1_1),
#elif STUB_THIS == STUB_tiny_table
            .struct_size = offsetof(bitcts_plugin_table, operator_execute),
#elif STUB_THIS == STUB_huge_table
            .struct_size = 1u << 20,
#else
            .struct_size = sizeof(bitcts_plugin_table),
#endif
#if STUB_THIS != STUB_null_name
            .name = "stub_" STUB_STR(STUB),
#endif
            .vendor = "bitcts project (test fixture)",
            .version = "0",
            .build_id = "abi_stub_plugin.c",
            .instance_create = stub_instance_create,
            .instance_destroy = stub_instance_destroy,
            .query_caps = stub_query_caps,
            .query_op_caps = stub_query_op_caps,
            .operator_create = stub_operator_create,
#if STUB_THIS != STUB_null_execute
            .operator_execute = stub_operator_execute,
#endif
            .operator_destroy = stub_operator_destroy,
        },
    .future_slot = stub_future_slot,
};

/* The versions this stub speaks, and how it answers. */
#if STUB_THIS == STUB_wrong_major || STUB_THIS == STUB_refuses
#define STUB_MIN_VERSION BITCTS_ABI_VERSION(2, 0)
#define STUB_MAX_VERSION BITCTS_ABI_VERSION(2, 0)
#elif STUB_THIS == STUB_newer_minor || STUB_THIS == STUB_minor_too_new
#define STUB_MIN_VERSION BITCTS_ABI_VERSION(1, 0)
#define STUB_MAX_VERSION BITCTS_ABI_VERSION(1, 1)
#else
#define STUB_MIN_VERSION BITCTS_ABI_VERSION_1_0
#define STUB_MAX_VERSION BITCTS_ABI_VERSION_1_0
#endif

#if STUB_THIS == STUB_missing_symbol
#define STUB_ENTRY bitcts_plugin_negotiate_v1 /* a near miss: the host must not accept it */
#else
#define STUB_ENTRY bitcts_plugin_negotiate
#endif

BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL STUB_ENTRY(bitcts_plugin_negotiation *n);

int32_t BITCTS_PLUGIN_CALL STUB_ENTRY(bitcts_plugin_negotiation *n)
{
    if (n == NULL || n->struct_size < sizeof *n) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
#if STUB_THIS == STUB_fails
    (void)stub_table;
    return BITCTS_ABI_E_OUT_OF_MEMORY;
#else
    /* A correct plugin picks the highest version inside both ranges. */
    const uint32_t low =
        n->host_min_version > STUB_MIN_VERSION ? n->host_min_version : STUB_MIN_VERSION;
    const uint32_t high =
        n->host_max_version < STUB_MAX_VERSION ? n->host_max_version : STUB_MAX_VERSION;
#if STUB_THIS == STUB_wrong_major
    (void)low;
    (void)high;
    n->chosen_version = BITCTS_ABI_VERSION(2, 0); /* the bug: ignores the host's range */
#elif STUB_THIS == STUB_minor_too_new
    (void)low;
    (void)high;
    n->chosen_version = STUB_MAX_VERSION; /* the bug: ignores the host's maximum */
#else
    if (low > high || BITCTS_ABI_MAJOR(low) != BITCTS_ABI_MAJOR(high)) {
        return BITCTS_ABI_E_INCOMPATIBLE;
    }
    n->chosen_version = high;
#endif
#if STUB_THIS == STUB_null_table
    (void)stub_table;                             /* the bug: no table */
#else
    n->table = &stub_table.base;
#endif
    return BITCTS_ABI_OK;
#endif
}
