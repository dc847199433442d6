/* SPDX-License-Identifier: MIT */
/* The Vulkan objects of an instance: the loader (dlopen'ed per instance, never linked), the
 * VkInstance with optional validation and a debug messenger, the physical device, the device
 * with the features the shaders need, one compute queue, a command buffer, a fence, the
 * pipeline layout (push constants only) and a host-visible control word.
 *
 * volk keeps loader- and instance-level function pointers in globals; the backend writes and
 * calls them only under vk_loader_lock, during instance creation and destruction. Every call
 * on a device goes through the instance's own VolkDeviceTable, never volk's globals. */
#include <dlfcn.h>   /* dlopen, dlsym, dlclose */
#include <pthread.h> /* pthread_mutex_t */
#include <stdio.h>   /* snprintf */
#include <string.h>  /* memcpy, strcmp */

#include "vk_internal.h"

#define VK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
#define VK_PUSH_BYTES 128u /* the minimum maxPushConstantsSize every device offers */

/* The one process-wide lock: volk's global loader and instance pointers. */
static pthread_mutex_t vk_loader_lock = PTHREAD_MUTEX_INITIALIZER;

int32_t bitcts__vk_check_validation(bitcts__vk_instance *inst)
{
    if (inst->validation_count == inst->validation_reported) {
        return BITCTS_ABI_OK;
    }
    snprintf(inst->last_error, sizeof inst->last_error, "validation: %u new message(s); first: %s",
             inst->validation_count - inst->validation_reported, inst->validation_first);
    inst->validation_reported = inst->validation_count;
    inst->validation_first[0] = '\0';
    return BITCTS_ABI_E_BACKEND_FAILED;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL vk_on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    bitcts__vk_instance *inst = user;
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        return VK_FALSE;
    }
    if (inst->validation_first[0] == '\0') {
        snprintf(inst->validation_first, sizeof inst->validation_first, "%s",
                 data != NULL && data->pMessage != NULL ? data->pMessage : "(no text)");
    }
    ++inst->validation_count;
    snprintf(inst->info_count, sizeof inst->info_count, "%u", inst->validation_count);
    return VK_FALSE;
}

/* Opens the loader library and points volk at it. Called with the loader lock held. */
static int32_t vk_open_loader(bitcts__vk_instance *inst, char *err, size_t cap)
{
    inst->loader = dlopen(inst->opt.loader, RTLD_NOW | RTLD_LOCAL);
    if (inst->loader == NULL) {
        const char *why = dlerror();
        snprintf(err, cap, "no Vulkan loader: cannot open %s (%s)", inst->opt.loader,
                 why != NULL ? why : "unknown reason");
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    void *sym = dlsym(inst->loader, "vkGetInstanceProcAddr");
    if (sym == NULL) {
        snprintf(err, cap, "%s has no vkGetInstanceProcAddr", inst->opt.loader);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    PFN_vkGetInstanceProcAddr gipa;
    memcpy(&gipa, &sym, sizeof gipa); /* POSIX: object pointer to function pointer */
    volkInitializeCustom(gipa);
    const uint32_t version = volkGetInstanceVersion();
    if (version < VK_API_VERSION_1_2) {
        snprintf(err, cap, "the Vulkan loader speaks %u.%u; the backend needs 1.2",
                 VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    return BITCTS_ABI_OK;
}

static int vk_has_layer(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t n = 64;
    const VkResult r = vkEnumerateInstanceLayerProperties(&n, layers);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        return 0;
    }
    for (uint32_t i = 0; i < n; ++i) {
        if (strcmp(layers[i].layerName, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Called with the loader lock held. */
static int32_t vk_create_instance(bitcts__vk_instance *inst, char *err, size_t cap)
{
    const char *layers[1] = {VK_VALIDATION_LAYER};
    const char *extensions[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    const int validate = inst->opt.validation != 0;
    if (validate && !vk_has_layer(VK_VALIDATION_LAYER)) {
        snprintf(err, cap, "validation=1: the layer %s is not installed", VK_VALIDATION_LAYER);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = vk_on_message,
        .pUserData = inst,
    };
    const VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "bitcts",
        .pEngineName = "bitcts vulkan backend",
        .apiVersion = VK_API_VERSION_1_2,
    };
    const VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validate ? &messenger_info : NULL, /* also covers create and destroy */
        .pApplicationInfo = &app,
        .enabledLayerCount = validate ? 1u : 0u,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = validate ? 1u : 0u,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult r = vkCreateInstance(&info, NULL, &inst->instance);
    if (r != VK_SUCCESS) {
        inst->instance = VK_NULL_HANDLE;
        snprintf(err, cap, "vkCreateInstance: %s (%d)%s", bitcts__vk_result_name(r), (int)r,
                 r == VK_ERROR_INCOMPATIBLE_DRIVER ? ": no Vulkan driver (ICD) found" : "");
        return r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_LAYER_NOT_PRESENT ||
                       r == VK_ERROR_EXTENSION_NOT_PRESENT
                   ? BITCTS_ABI_E_NOT_SUPPORTED
                   : BITCTS_ABI_E_DEVICE;
    }
    volkLoadInstanceOnly(inst->instance);
    if (validate) {
        r = vkCreateDebugUtilsMessengerEXT(inst->instance, &messenger_info, NULL, &inst->messenger);
        if (r != VK_SUCCESS) {
            snprintf(err, cap, "vkCreateDebugUtilsMessengerEXT: %s", bitcts__vk_result_name(r));
            return BITCTS_ABI_E_DEVICE;
        }
    }
    return BITCTS_ABI_OK;
}

static uint32_t vk_type_rank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static const char *vk_type_name(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

/* device=N, or by default the first device of the best type (discrete, integrated, virtual,
 * CPU). Called with the loader lock held. */
static int32_t vk_pick_physical(bitcts__vk_instance *inst, char *err, size_t cap)
{
    VkPhysicalDevice devices[32];
    uint32_t n = 32;
    const VkResult r = vkEnumeratePhysicalDevices(inst->instance, &n, devices);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
        snprintf(err, cap, "no Vulkan device (vkEnumeratePhysicalDevices: %s, %u devices)",
                 bitcts__vk_result_name(r), n);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    uint32_t pick = 0;
    if (inst->opt.device != BITCTS__VK_DEVICE_AUTO) {
        if ((uint32_t)inst->opt.device >= n) {
            snprintf(err, cap, "option device=%d: this system has %u Vulkan device(s)",
                     inst->opt.device, n);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        pick = (uint32_t)inst->opt.device;
    } else {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < n; ++i) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            if (vk_type_rank(p.deviceType) < best) {
                best = vk_type_rank(p.deviceType);
                pick = i;
            }
        }
    }
    inst->physical = devices[pick];
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(inst->physical, &p);
    snprintf(inst->info_device, sizeof inst->info_device, "%s (%s, vendor 0x%04x, device %u of %u)",
             p.deviceName, vk_type_name(p.deviceType), p.vendorID, pick, n);
    snprintf(inst->info_api, sizeof inst->info_api, "%u.%u.%u", VK_API_VERSION_MAJOR(p.apiVersion),
             VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion));
    if (p.apiVersion < VK_API_VERSION_1_2) {
        snprintf(err, cap, "%s speaks Vulkan %s; the backend needs 1.2", p.deviceName,
                 inst->info_api);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    return BITCTS_ABI_OK;
}

/* Properties the backend sizes itself by, and the report's driver text. */
static void vk_read_properties(bitcts__vk_instance *inst)
{
    VkPhysicalDeviceVulkan12Properties p12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceVulkan11Properties p11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES, .pNext = &p12};
    VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                     .pNext = &p11};
    vkGetPhysicalDeviceProperties2(inst->physical, &p);
    snprintf(inst->info_driver, sizeof inst->info_driver, "%s, %s (driverVersion 0x%08x)",
             p12.driverName, p12.driverInfo, p.properties.driverVersion);
    inst->max_allocation = p11.maxMemoryAllocationSize;
    inst->timestamp_period = p.properties.limits.timestampPeriod;
    bitcts__vk_pcache_name(inst, &p.properties);
    const VkPhysicalDeviceLimits *lim = &p.properties.limits;
    const uint32_t groups = lim->maxComputeWorkGroupCount[0];
    /* Grids as large as the work (one chunk, element or tile an invocation or workgroup) unless
     * the option max_groups bounds them: the shaders loop over what a grid does not cover. On
     * an H100 the copy kernel ran at 2850 GB/s with 4096 workgroups, at 2975 unbounded. */
    const uint32_t bound = inst->opt.max_groups != 0 ? inst->opt.max_groups : groups;
    inst->max_groups = groups < bound ? groups : bound;
    inst->limits.max_shared = lim->maxComputeSharedMemorySize;
    inst->limits.max_threads = lim->maxComputeWorkGroupInvocations < lim->maxComputeWorkGroupSize[0]
                                   ? lim->maxComputeWorkGroupInvocations
                                   : lim->maxComputeWorkGroupSize[0];
    /* Timing rounds (vk_timing.c): a GPU's clocks need rounds of work to settle; a CPU device
     * runs at the host's, and its noise would only repeat rounds. */
    const int cpu = p.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    inst->timing_rounds = inst->opt.timing_rounds != 0 ? inst->opt.timing_rounds : cpu ? 1u : 40u;
}

/* A compute queue family; the memory properties vk_memory.c chooses types from. */
static int32_t vk_pick_queue(bitcts__vk_instance *inst, char *err, size_t cap)
{
    VkQueueFamilyProperties families[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(inst->physical, &n, families);
    inst->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < n && inst->queue_family == UINT32_MAX; ++i) {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) {
            inst->queue_family = i;
            inst->timestamp_bits = families[i].timestampValidBits;
        }
    }
    if (inst->queue_family == UINT32_MAX) {
        snprintf(err, cap, "the device has no compute queue");
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    vkGetPhysicalDeviceMemoryProperties(inst->physical, &inst->memory);
    VkDeviceSize largest = 0;
    for (uint32_t i = 0; i < inst->memory.memoryHeapCount; ++i) {
        const VkMemoryHeap *h = &inst->memory.memoryHeaps[i];
        if ((h->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0 && h->size > largest) {
            largest = h->size;
        }
    }
    snprintf(inst->info_memory, sizeof inst->info_memory, "%llu",
             (unsigned long long)(largest >> 20));
    return BITCTS_ABI_OK;
}

static void vk_feature_text(bitcts__vk_instance *inst, int has8, int has16)
{
    snprintf(inst->info_features, sizeof inst->info_features,
             "bufferDeviceAddress storageBuffer8BitAccess=%s storageBuffer16BitAccess=%s%s",
             inst->has_storage8 ? "on"
             : has8             ? "disabled"
                                : "absent",
             inst->has_storage16 ? "on"
             : has16             ? "disabled"
                                 : "absent",
             inst->opt.validation ? " validation" : "");
}

/* Features: bufferDeviceAddress is required; 8- and 16-bit storage are used where present
 * and not disabled. Called with the loader lock held. */
static int32_t vk_create_device(bitcts__vk_instance *inst, char *err, size_t cap)
{
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
    VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                   .pNext = &f11};
    vkGetPhysicalDeviceFeatures2(inst->physical, &f);
    if (!f12.bufferDeviceAddress) {
        snprintf(err, cap, "%s lacks bufferDeviceAddress, which every shader of the backend uses",
                 inst->info_device);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    const int has8 = f12.storageBuffer8BitAccess != 0;
    const int has16 = f11.storageBuffer16BitAccess != 0;
    inst->has_storage8 = has8 && !(inst->opt.disable & BITCTS__VK_DISABLE_STORAGE8);
    inst->has_storage16 = has16 && !(inst->opt.disable & BITCTS__VK_DISABLE_STORAGE16);
    vk_feature_text(inst, has8, has16);
    VkPhysicalDeviceVulkan12Features e12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .bufferDeviceAddress = VK_TRUE,
        .storageBuffer8BitAccess = inst->has_storage8 ? VK_TRUE : VK_FALSE,
    };
    VkPhysicalDeviceVulkan11Features e11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
        .pNext = &e12,
        .storageBuffer16BitAccess = inst->has_storage16 ? VK_TRUE : VK_FALSE,
    };
    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = inst->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    const VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &e11,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
    };
    const VkResult r = vkCreateDevice(inst->physical, &info, NULL, &inst->device);
    if (r != VK_SUCCESS) {
        inst->device = VK_NULL_HANDLE;
        snprintf(err, cap, "vkCreateDevice on %s: %s", inst->info_device,
                 bitcts__vk_result_name(r));
        return r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
                   ? BITCTS_ABI_E_OUT_OF_MEMORY
                   : BITCTS_ABI_E_DEVICE;
    }
    volkLoadDeviceTable(&inst->vk, inst->device); /* uses volk's global vkGetDeviceProcAddr */
    inst->vk.vkGetDeviceQueue(inst->device, inst->queue_family, 0, &inst->queue);
    return BITCTS_ABI_OK;
}

/* Command pool and buffer, fence, pipeline layout, control word: device calls only. */
static int32_t vk_create_objects(bitcts__vk_instance *inst, char *err, size_t cap)
{
    const VkCommandPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = inst->queue_family,
    };
    VkResult r = inst->vk.vkCreateCommandPool(inst->device, &pool, NULL, &inst->pool);
    if (r == VK_SUCCESS) {
        const VkCommandBufferAllocateInfo alloc = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = inst->pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        r = inst->vk.vkAllocateCommandBuffers(inst->device, &alloc, &inst->cmd);
    }
    if (r == VK_SUCCESS) {
        const VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        r = inst->vk.vkCreateFence(inst->device, &fence, NULL, &inst->fence);
    }
    if (r == VK_SUCCESS) {
        const VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VK_PUSH_BYTES};
        const VkPipelineLayoutCreateInfo layout = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
            .pushConstantRangeCount = 1,
            .pPushConstantRanges = &range,
        };
        r = inst->vk.vkCreatePipelineLayout(inst->device, &layout, NULL, &inst->layout);
    }
    if (r != VK_SUCCESS) {
        snprintf(err, cap, "creating the command buffer, fence and layout: %s",
                 bitcts__vk_result_name(r));
        return bitcts__vk_fail(inst, r, "device objects");
    }
    const int32_t rc = bitcts__vk_host_buffer_create(
        inst, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
        &inst->control);
    if (rc != BITCTS_ABI_OK) {
        snprintf(err, cap, "control buffer: %s", inst->last_error);
        return rc;
    }
    memset(inst->control.map, 0, 256); /* mapped memory starts undefined: "not cancelled" */
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_device_create(bitcts__vk_instance *inst, char *err, size_t cap)
{
    snprintf(inst->info_count, sizeof inst->info_count, "0");
    pthread_mutex_lock(&vk_loader_lock);
    int32_t rc = vk_open_loader(inst, err, cap);
    if (rc == BITCTS_ABI_OK) {
        rc = vk_create_instance(inst, err, cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_pick_physical(inst, err, cap);
    }
    if (rc == BITCTS_ABI_OK) {
        vk_read_properties(inst);
        rc = vk_pick_queue(inst, err, cap);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_create_device(inst, err, cap);
    }
    pthread_mutex_unlock(&vk_loader_lock);
    if (rc == BITCTS_ABI_OK) {
        bitcts__vk_pcache_open(inst);
    }
    if (rc == BITCTS_ABI_OK) {
        rc = vk_create_objects(inst, err, cap);
    }
    if (rc == BITCTS_ABI_OK && inst->validation_count != 0) {
        snprintf(err, cap, "validation: %u message(s) while creating the device; first: %s",
                 inst->validation_count, inst->validation_first);
        rc = BITCTS_ABI_E_BACKEND_FAILED;
    }
    return rc;
}

/* Waits for the queue unless a timed-out submission never stopped: then the device and what
 * it may still use are left alone (destroying them would be invalid, waiting might hang). */
void bitcts__vk_device_destroy(bitcts__vk_instance *inst)
{
    const int usable = inst->device != VK_NULL_HANDLE && inst->state != BITCTS__VK_STATE_WEDGED;
    if (usable) {
        inst->vk.vkDeviceWaitIdle(inst->device);
        bitcts__vk_pipelines_destroy(inst);
        bitcts__vk_pcache_close(inst);
        for (uint32_t i = 0; i < BITCTS__VK_SLOT_COUNT; ++i) {
            bitcts__vk_buffer_destroy(inst, &inst->slots[i]);
        }
        bitcts__vk_buffer_destroy(inst, &inst->staging);
        bitcts__vk_buffer_destroy(inst, &inst->control);
        if (inst->layout != VK_NULL_HANDLE) {
            inst->vk.vkDestroyPipelineLayout(inst->device, inst->layout, NULL);
        }
        if (inst->fence != VK_NULL_HANDLE) {
            inst->vk.vkDestroyFence(inst->device, inst->fence, NULL);
        }
        if (inst->pool != VK_NULL_HANDLE) {
            inst->vk.vkDestroyCommandPool(inst->device, inst->pool, NULL);
        }
        inst->vk.vkDestroyDevice(inst->device, NULL);
    }
    pthread_mutex_lock(&vk_loader_lock);
    if (inst->instance != VK_NULL_HANDLE && (usable || inst->device == VK_NULL_HANDLE)) {
        volkLoadInstanceOnly(inst->instance);
        if (inst->messenger != VK_NULL_HANDLE) {
            vkDestroyDebugUtilsMessengerEXT(inst->instance, inst->messenger, NULL);
        }
        vkDestroyInstance(inst->instance, NULL);
    }
    if (inst->loader != NULL && (usable || inst->device == VK_NULL_HANDLE)) {
        dlclose(inst->loader);
    }
    pthread_mutex_unlock(&vk_loader_lock);
}
