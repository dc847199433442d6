/* SPDX-License-Identifier: MIT */
/* Batching plugins: the example plugin (backends/example, correct) with the batch extension
 * (bitcts_batch_execute_v1) added, one behaviour per build: -DBATCH_NAME="<behaviour>" (the list
 * is in tests/plugins/CMakeLists.txt; tests/harness/batch_plugins.py holds the verdict each must
 * earn). `good` batches correctly. The others misbehave on BIT_COUNT items only, and the same way
 * in operator_execute, so that a run without batching (--batch-cases 1) earns the very verdicts
 * a batched run must earn: crash_item (a null write), hang_item (spins), write_past_item (a byte
 * just past the output: its guard bytes), write_far_item (a byte 64 KiB past it: the no-access
 * zone), desc_item (makes the lent description writable and changes Output sizes[0]), lie_item
 * (runs nothing and says OK), status_item (runs the item right, then says BACKEND_FAILED).
 * batch_only_crash crashes inside execute_batch on a BIT_COUNT item of a call of several items
 * and never in operator_execute: each of its cases, run alone, is right. batch_only_wrong flips a
 * bit of a BIT_COUNT item's output in a call of several items only: its failures prove that a
 * run batched (a wrong batched path fails; it is not run again, since nothing went wrong). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */

#include <stdint.h>   /* uintptr_t */
#include <stdlib.h>   /* calloc */
#include <string.h>   /* strcmp */
#include <sys/mman.h> /* mprotect */
#include <unistd.h>   /* sysconf */

#include "bitcts/bitcts_plugin.h"

#ifndef BATCH_NAME
#error "build with -DBATCH_NAME=\"<behaviour>\""
#endif

/* The example plugin's negotiation, compiled under another name into the same module. */
int32_t BITCTS_PLUGIN_CALL bitcts_example_inner_negotiate(bitcts_plugin_negotiation *n);

static int is(const char *name)
{
    return strcmp(BATCH_NAME, name) == 0;
}

static bitcts_plugin_table table;        /* the example's, with some entries replaced */
static const bitcts_plugin_table *inner; /* the example's own */

typedef struct batch_op {
    void *inner;
    uint32_t operator_type;
    uint64_t out_bytes;
    const bitcts_abi_operator_desc *desc; /* the lent description, kept against the rules */
} batch_op;

static int32_t BITCTS_PLUGIN_CALL b_operator_create(void *instance,
                                                    const bitcts_abi_operator_desc *desc,
                                                    void **out)
{
    batch_op *op = calloc(1, sizeof *op);
    if (op == NULL || out == NULL) {
        free(op);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    const int32_t st = inner->operator_create(instance, desc, &op->inner);
    if (st != BITCTS_ABI_OK) {
        free(op);
        *out = NULL;
        return st;
    }
    op->operator_type = desc->operator_type;
    op->out_bytes = desc->output->total_tensor_size_in_bytes;
    op->desc = desc;
    *out = op;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL b_operator_destroy(void *instance, void *opaque)
{
    batch_op *op = opaque;
    if (op != NULL) {
        inner->operator_destroy(instance, op->inner);
        free(op);
    }
}

static void spin_forever(void)
{
    for (volatile unsigned long i = 0;; ++i) {
    }
}

static void crash_null(void)
{
    volatile int *p = NULL;
    *p = 42;
}

/* desc_item: the pages of the lent sizes made writable, Output sizes[0] set to 1. */
static void rewrite_desc(const bitcts_abi_operator_desc *desc)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint32_t *sizes = (uint32_t *)(uintptr_t)desc->output->sizes;
    void *start = (void *)((uintptr_t)sizes & ~(uintptr_t)(page - 1));
    if (mprotect(start, 2 * page, PROT_READ | PROT_WRITE) == 0) {
        sizes[0] = 1;
    }
}

/* One execution with the behaviour; `batched` is the count of the call's items (0: alone). */
static int32_t execute_one(void *instance, batch_op *op, const void *const *inputs, void *output,
                           uint32_t batched)
{
    if (op == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    const int strike = op->operator_type == BITCTS_OP_BIT_COUNT;
    if (strike && (is("crash_item") || (is("batch_only_crash") && batched > 1))) {
        crash_null();
    }
    if (strike && is("hang_item")) {
        spin_forever();
    }
    if (strike && is("lie_item")) {
        return BITCTS_ABI_OK;
    }
    const int32_t st = inner->operator_execute(instance, op->inner, inputs, output);
    if (strike && is("write_past_item")) {
        ((volatile uint8_t *)output)[op->out_bytes] ^= 0x5A;
    }
    if (strike && is("write_far_item")) {
        ((volatile uint8_t *)output)[op->out_bytes + 65536] = 1;
    }
    if (strike && is("desc_item")) {
        rewrite_desc(op->desc);
    }
    if (strike && is("batch_only_wrong") && batched > 1) {
        ((volatile uint8_t *)output)[0] ^= 0x01;
    }
    if (strike && is("status_item")) {
        return BITCTS_ABI_E_BACKEND_FAILED;
    }
    return st;
}

static int32_t BITCTS_PLUGIN_CALL b_operator_execute(void *instance, void *op,
                                                     const void *const *inputs, void *output)
{
    return execute_one(instance, op, inputs, output, 0);
}

static int32_t BITCTS_PLUGIN_CALL b_execute_batch(void *instance, uint32_t count,
                                                  bitcts_abi_batch_item *items)
{
    if (items == NULL && count > 0) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < count; ++i) {
        items[i].status =
            execute_one(instance, items[i].op, items[i].inputs, items[i].output, count);
    }
    return BITCTS_ABI_OK;
}

static const bitcts_abi_batch_ext batch_ext = {
    .struct_size = sizeof(bitcts_abi_batch_ext),
    .execute_batch = b_execute_batch,
};

static const void *BITCTS_PLUGIN_CALL b_get_extension(const char *name)
{
    if (name != NULL && strcmp(name, BITCTS_ABI_EXT_BATCH_EXECUTE) == 0) {
        return &batch_ext;
    }
    return inner->get_extension != NULL ? inner->get_extension(name) : NULL;
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
    table.operator_create = b_operator_create;
    table.operator_destroy = b_operator_destroy;
    table.operator_execute = b_operator_execute;
    table.get_extension = b_get_extension;
    n->table = &table;
    return BITCTS_ABI_OK;
}
