/* SPDX-License-Identifier: MIT */
/* Vulkan results in bitcts terms: the name of a VkResult, and the status a failed call maps to
 * (the instance marked lost on VK_ERROR_DEVICE_LOST, the call and the result in its last
 * error). Every file that calls Vulkan reports failures through here. Thread-safety: an
 * instance's calls come from one thread (the ABI's rule). */
#include <stdio.h> /* snprintf */

#include "vk_internal.h"

const char *bitcts__vk_result_name(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult (other)";
    }
}

int32_t bitcts__vk_fail(bitcts__vk_instance *inst, VkResult r, const char *what)
{
    snprintf(inst->last_error, sizeof inst->last_error, "%s: %s (%d)", what,
             bitcts__vk_result_name(r), (int)r);
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS: return BITCTS_ABI_E_OUT_OF_MEMORY;
    case VK_ERROR_DEVICE_LOST: inst->state = BITCTS__VK_STATE_LOST; return BITCTS_ABI_E_DEVICE;
    default: return BITCTS_ABI_E_DEVICE;
    }
}
