/* SPDX-License-Identifier: MIT */
/* The "vulkan" backend behind the plugin ABI: instances (options, device), capabilities,
 * operator creation (validation, plan, pipeline) and execution, the report's facts and the
 * device-timing extension. Exported as bitcts_vulkan_negotiate, and as
 * bitcts_plugin_negotiate when built as a plugin module (BITCTS_VK_AS_PLUGIN). */
#include "vk_backend.h"

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_backend_kit.h" /* negotiation, capability records */
#include "vk_internal.h"

#ifndef BITCTS_VK_BUILD_ID
#define BITCTS_VK_BUILD_ID "unknown"
#endif
#define VK_BACKEND_VERSION "1.0.0"

/* The host that negotiated last: a refused instance has no other place for its reason. */
static const bitcts_abi_host *vk_host;

static void vk_log(int32_t level, const char *message)
{
    const bitcts_abi_host *host = vk_host;
    if (host != NULL && host->struct_size >= offsetof(bitcts_abi_host, log) + sizeof host->log &&
        host->log != NULL) {
        host->log(host->user, level, message);
    }
}

static void BITCTS_PLUGIN_CALL vk_instance_destroy(void *instance)
{
    bitcts__vk_instance *inst = instance;
    if (inst != NULL) {
        bitcts__vk_device_destroy(inst);
        free(inst);
    }
}

static int32_t BITCTS_PLUGIN_CALL vk_instance_create(const bitcts_abi_create_info *info,
                                                     void **out_instance)
{
    if (out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_instance = NULL;
    char err[600] = "";
    bitcts__vk_instance *inst = calloc(1, sizeof *inst);
    int32_t rc = inst == NULL ? BITCTS_ABI_E_OUT_OF_MEMORY : BITCTS_ABI_OK;
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_options_parse(info, &inst->opt, err, sizeof err);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_device_create(inst, err, sizeof err);
    }
    if (rc != BITCTS_ABI_OK) {
        char message[640];
        snprintf(message, sizeof message, "vulkan: %s", err[0] != '\0' ? err : "out of memory");
        vk_log(BITCTS_ABI_LOG_ERROR, message);
        vk_instance_destroy(inst);
        return rc;
    }
    inst->fault_armed = 1;
    *out_instance = inst;
    return BITCTS_ABI_OK;
}

static const char *BITCTS_PLUGIN_CALL vk_instance_last_error(void *instance)
{
    return instance != NULL ? ((bitcts__vk_instance *)instance)->last_error : "";
}

/* FL 4_1 needs 8- and 16-bit elements in every layout; without the storage features the
 * backend claims nothing, so the cases it refuses are NOT_SUPPORTED rather than failures. */
static int32_t BITCTS_PLUGIN_CALL vk_query_caps(void *instance, bitcts_abi_caps *out)
{
    const bitcts__vk_instance *inst = instance;
    if (inst == NULL || out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    out->feature_level = inst->has_storage8 && inst->has_storage16 ? BITCTS_FL_4_1 : BITCTS_FL_1_0;
    return BITCTS_ABI_OK;
}

/* Everything DirectML documents for the seven operators. */
static int32_t BITCTS_PLUGIN_CALL vk_query_op_caps(void *instance, uint32_t operator_type,
                                                   bitcts_abi_op_caps *out)
{
    return instance != NULL ? bitcts_kit_op_caps_fill(out, operator_type)
                            : BITCTS_ABI_E_INVALID_ARGUMENT;
}

/* A call may not start on a lost or wedged device, nor after unreported validation messages. */
static int32_t vk_usable(bitcts__vk_instance *inst)
{
    if (inst->state == BITCTS__VK_STATE_LOST) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "the device was lost (VK_ERROR_DEVICE_LOST) earlier on this instance");
        return BITCTS_ABI_E_DEVICE;
    }
    if (inst->state == BITCTS__VK_STATE_WEDGED) {
        snprintf(inst->last_error, sizeof inst->last_error,
                 "a submission on this instance timed out and never stopped");
        return BITCTS_ABI_E_DEVICE;
    }
    return bitcts__vk_check_validation(inst);
}

static int32_t BITCTS_PLUGIN_CALL vk_operator_create(void *instance,
                                                     const bitcts_abi_operator_desc *desc,
                                                     void **out_operator)
{
    bitcts__vk_instance *inst = instance;
    if (inst == NULL || out_operator == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    *out_operator = NULL;
    inst->last_error[0] = '\0';
    bitcts__vk_desc d;
    int32_t rc = bitcts__vk_validate(desc, &d, inst->last_error, sizeof inst->last_error);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    rc = vk_usable(inst);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    bitcts__vk_operator *op = calloc(1, sizeof *op);
    if (op == NULL) {
        snprintf(inst->last_error, sizeof inst->last_error, "out of memory");
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    rc = bitcts__vk_plan_build(&d, &inst->opt, &inst->limits, &op->plan, inst->last_error,
                               sizeof inst->last_error);
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_operator_prepare(inst, op);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_check_validation(inst);
    }
    if (rc != BITCTS_ABI_OK) {
        free(op);
        return rc;
    }
    *out_operator = op;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL vk_operator_execute(void *instance, void *op,
                                                      const void *const *inputs, void *output)
{
    bitcts__vk_instance *inst = instance;
    const bitcts__vk_operator *oper = op;
    if (inst == NULL || oper == NULL || inputs == NULL || output == NULL || inputs[0] == NULL ||
        (oper->plan.input_count == 2 && inputs[1] == NULL)) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    inst->last_error[0] = '\0';
    int32_t rc = vk_usable(inst);
    if (rc == BITCTS_ABI_OK) {
        rc = bitcts__vk_execute(inst, oper, inputs, output);
    }
    const int32_t vrc = bitcts__vk_check_validation(inst);
    return rc != BITCTS_ABI_OK ? rc : vrc;
}

static void BITCTS_PLUGIN_CALL vk_operator_destroy(void *instance, void *op)
{
    (void)instance;
    free(op); /* pipelines belong to the instance's cache */
}

static const char *vk_kind_name(uint32_t path)
{
    return path == BITCTS__VK_PATH_STRIDED ? "strided" : "packed+rows+tile+tilew+strided";
}

static const char *BITCTS_PLUGIN_CALL vk_instance_info(void *instance, const char *key)
{
    const bitcts__vk_instance *inst = instance;
    if (inst == NULL || key == NULL) {
        return NULL;
    }
    if (strcmp(key, "device") == 0) {
        return inst->info_device;
    }
    if (strcmp(key, "driver") == 0) {
        return inst->info_driver;
    }
    if (strcmp(key, "api_version") == 0) {
        return inst->info_api;
    }
    if (strcmp(key, "features") == 0) {
        return inst->info_features;
    }
    if (strcmp(key, "variant") == 0) {
        return vk_kind_name(inst->opt.path);
    }
    if (strcmp(key, "validation_messages") == 0) {
        return inst->info_count;
    }
    if (strcmp(key, "device_memory_mib") == 0) {
        return inst->info_memory;
    }
    return NULL;
}

static int32_t BITCTS_PLUGIN_CALL vk_execute_batch(void *instance, uint32_t count,
                                                   bitcts_abi_batch_item *items)
{
    return bitcts__vk_batch_execute(instance, count, items, vk_operator_execute);
}

static const bitcts_abi_batch_ext vk_batch_ext = {
    .struct_size = sizeof(bitcts_abi_batch_ext),
    .execute_batch = vk_execute_batch,
};

static const void *BITCTS_PLUGIN_CALL vk_get_extension(const char *name)
{
    if (name != NULL && strcmp(name, BITCTS_ABI_EXT_DEVICE_TIMING) == 0) {
        return &bitcts__vk_timing_ext;
    }
    if (name != NULL && strcmp(name, BITCTS_ABI_EXT_BATCH_EXECUTE) == 0) {
        return &vk_batch_ext;
    }
    return NULL;
}

static void BITCTS_PLUGIN_CALL vk_plugin_shutdown(void)
{
    vk_host = NULL; /* no log call after this returns */
}

static const bitcts_plugin_table vk_table = {
    .struct_size = sizeof(bitcts_plugin_table),
    .name = "vulkan",
    .vendor = "bitcts project",
    .version = VK_BACKEND_VERSION,
    .build_id = BITCTS_VK_BUILD_ID,
    .instance_create = vk_instance_create,
    .instance_destroy = vk_instance_destroy,
    .instance_last_error = vk_instance_last_error,
    .query_caps = vk_query_caps,
    .query_op_caps = vk_query_op_caps,
    .operator_create = vk_operator_create,
    .operator_execute = vk_operator_execute,
    .operator_destroy = vk_operator_destroy,
    .instance_info = vk_instance_info,
    .plugin_shutdown = vk_plugin_shutdown,
    .get_extension = vk_get_extension,
};

int32_t BITCTS_PLUGIN_CALL bitcts_vulkan_negotiate(bitcts_plugin_negotiation *n)
{
    return bitcts_kit_negotiate(n, &vk_table, &vk_host);
}

#if defined(BITCTS_VK_AS_PLUGIN)
/* The one symbol a plugin module exports (PLG-1). */
BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    return bitcts_vulkan_negotiate(n);
}
#endif
