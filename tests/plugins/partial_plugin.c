/* SPDX-License-Identifier: MIT */
/* A partial implementation: the example plugin (backends/example, correct) claiming and
 * creating only the one operator it is built for (-DPARTIAL_OP=BITCTS_OP_BIT_XOR), as a backend
 * written one kernel at a time is. Its feature level stays the
 * example's, so without `run --claimed` every case of another operator that the level requires
 * fails as "required but not supported"; with it, they are left out and counted in the report's
 * conformance claim (tests/cli/selection.sh). */
#include <stdint.h> /* uint32_t */

#include "bitcts/bitcts_plugin.h"

#ifndef PARTIAL_OP
#error "build with -DPARTIAL_OP=<operator type>, e.g. BITCTS_OP_BIT_XOR"
#endif

/* The example plugin's negotiation, compiled under another name into the same module. */
int32_t BITCTS_PLUGIN_CALL bitcts_example_inner_negotiate(bitcts_plugin_negotiation *n);

static bitcts_plugin_table table;        /* the example's, with the operator entries replaced */
static const bitcts_plugin_table *inner; /* the example's own */

static int is_implemented(uint32_t operator_type)
{
    return operator_type == (PARTIAL_OP);
}

static int32_t BITCTS_PLUGIN_CALL partial_query_op_caps(void *instance, uint32_t operator_type,
                                                        bitcts_abi_op_caps *out)
{
    if (!is_implemented(operator_type)) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    return inner->query_op_caps(instance, operator_type, out);
}

static int32_t BITCTS_PLUGIN_CALL partial_operator_create(void *instance,
                                                          const bitcts_abi_operator_desc *desc,
                                                          void **out)
{
    if (desc != NULL && !is_implemented(desc->operator_type)) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    return inner->operator_create(instance, desc, out);
}

BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    const int32_t st = bitcts_example_inner_negotiate(n);
    if (st != BITCTS_ABI_OK) {
        return st;
    }
    inner = n->table;
    table = *inner;
    table.name = "partial";
    table.query_op_caps = partial_query_op_caps;
    table.operator_create = partial_operator_create;
    n->table = &table;
    return BITCTS_ABI_OK;
}
