/* SPDX-License-Identifier: MIT */
/* Instance options of the Vulkan backend (vk_backend.h lists them): every key is known or
 * instance_create fails (PLG-9), and every value is checked. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtoul */
#include <string.h> /* strcmp, strchr */

#include "vk_internal.h"

#define VK_DEFAULT_TIMEOUT_MS 20000u
#define VK_DEFAULT_STAGING_MIB 64u

/* A decimal integer in [lo, hi]; -1 for anything else. */
static int vk_parse_uint(const char *text, uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (text[0] < '0' || text[0] > '9') {
        return -1;
    }
    char *end = NULL;
    const unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || v < lo || v > hi) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* `auto` (stored as 0) or a decimal integer in [lo, hi], lo >= 1; -1 for anything else. */
static int vk_parse_auto(const char *text, uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (strcmp(text, "auto") == 0) {
        *out = 0;
        return 0;
    }
    return vk_parse_uint(text, lo, hi, out);
}

/* `auto` (0) or a power of two in [lo, hi]; -1 for anything else. */
static int vk_parse_auto_pow2(const char *text, uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (vk_parse_auto(text, lo, hi, out) != 0) {
        return -1;
    }
    return (*out & (*out - 1)) == 0 ? 0 : -1;
}

static int32_t vk_parse_fault(const char *value, bitcts__vk_options *o, char *err, size_t cap)
{
    static const struct {
        const char *name;
        uint32_t fault;
    } faults[] = {
        {"none", BITCTS__VK_FAULT_NONE},
        {"hang", BITCTS__VK_FAULT_HANG},
        {"oom", BITCTS__VK_FAULT_OOM},
        {"lost", BITCTS__VK_FAULT_LOST},
        {"validation", BITCTS__VK_FAULT_VALIDATION},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; ++i) {
        if (strcmp(value, faults[i].name) == 0) {
            o->fault = faults[i].fault;
            return BITCTS_ABI_OK;
        }
    }
    snprintf(err, cap, "option fault=%s: expected none, hang, oom, lost or validation", value);
    return BITCTS_ABI_E_INVALID_ARGUMENT;
}

/* disable=storage8,storage16: features the backend must not use even where present. */
static int32_t vk_parse_disable(const char *value, bitcts__vk_options *o, char *err, size_t cap)
{
    const char *p = value;
    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        const size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (n == 9 && strncmp(p, "storage16", 9) == 0) {
            o->disable |= BITCTS__VK_DISABLE_STORAGE16;
        } else if (n == 8 && strncmp(p, "storage8", 8) == 0) {
            o->disable |= BITCTS__VK_DISABLE_STORAGE8;
        } else if (n != 0 || comma == NULL) {
            snprintf(err, cap, "option disable=%s: expected a list of storage8, storage16", value);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        p += n + (comma != NULL ? 1 : 0);
    }
    return BITCTS_ABI_OK;
}

/* The options that take a number, `auto` (0) or a power of two: the parser, its bounds, the
 * field and what the error says is expected. */
typedef int (*vk_number_parser)(const char *text, uint32_t lo, uint32_t hi, uint32_t *out);
static const struct {
    const char *key;
    vk_number_parser parse;
    uint32_t lo, hi;
    size_t field; /* offsetof(bitcts__vk_options, ...) */
    const char *expected;
} vk_numbers[] = {
    {"timeout_ms", vk_parse_uint, 1, 3600000, offsetof(bitcts__vk_options, timeout_ms),
     "1-3600000"},
    {"validation", vk_parse_uint, 0, 1, offsetof(bitcts__vk_options, validation), "0 or 1"},
    {"staging_mib", vk_parse_uint, 1, 4096, offsetof(bitcts__vk_options, staging_mib), "1-4096"},
    {"strided_unroll", vk_parse_uint, 1, 8, offsetof(bitcts__vk_options, unroll), "1-8"},
    {"packed_unroll", vk_parse_uint, 1, 4, offsetof(bitcts__vk_options, packed_unroll), "1-4"},
    {"tile_threads", vk_parse_auto_pow2, 256, 1024, offsetof(bitcts__vk_options, tile_threads),
     "auto, 256, 512 or 1024"},
    {"packed_threads", vk_parse_auto_pow2, 64, 1024, offsetof(bitcts__vk_options, packed_threads),
     "auto, 64, 128, 256, 512 or 1024"},
    {"packed_chunk", vk_parse_auto_pow2, 4, 16, offsetof(bitcts__vk_options, packed_chunk),
     "auto, 4, 8 or 16"},
    {"max_groups", vk_parse_auto, 1, 0x7FFFFFFFu, offsetof(bitcts__vk_options, max_groups),
     "auto or 1-2147483647"},
    {"tile_span", vk_parse_auto, 1, 64, offsetof(bitcts__vk_options, tile_span), "auto or 1-64"},
    {"timing_rounds", vk_parse_auto, 1, 64, offsetof(bitcts__vk_options, timing_rounds),
     "auto or 1-64"},
};

static int32_t vk_parse_one(const char *key, const char *value, bitcts__vk_options *o, char *err,
                            size_t cap)
{
    for (size_t i = 0; i < sizeof vk_numbers / sizeof vk_numbers[0]; ++i) {
        if (strcmp(key, vk_numbers[i].key) == 0) {
            uint32_t *field = (uint32_t *)((char *)o + vk_numbers[i].field);
            if (vk_numbers[i].parse(value, vk_numbers[i].lo, vk_numbers[i].hi, field) != 0) {
                snprintf(err, cap, "option %s=%s: expected %s", key, value, vk_numbers[i].expected);
                return BITCTS_ABI_E_INVALID_ARGUMENT;
            }
            return BITCTS_ABI_OK;
        }
    }
    uint32_t v = 0;
    if (strcmp(key, "device") == 0) {
        if (strcmp(value, "auto") == 0) {
            o->device = BITCTS__VK_DEVICE_AUTO;
        } else if (vk_parse_uint(value, 0, 255, &v) == 0) {
            o->device = (int32_t)v;
        } else {
            snprintf(err, cap, "option device=%s: expected auto or an index 0-255", value);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    } else if (strcmp(key, "path") == 0) {
        if (strcmp(value, "auto") == 0 || strcmp(value, "strided") == 0) {
            o->path = value[0] == 'a' ? BITCTS__VK_PATH_AUTO : BITCTS__VK_PATH_STRIDED;
        } else {
            snprintf(err, cap, "option path=%s: expected auto or strided", value);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    } else if (strcmp(key, "loader") == 0) {
        if (value[0] == '\0' || strlen(value) >= sizeof o->loader) {
            snprintf(err, cap, "option loader: expected a library name of 1-%zu bytes",
                     sizeof o->loader - 1);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        snprintf(o->loader, sizeof o->loader, "%s", value);
    } else if (strcmp(key, "pipeline_cache") == 0) {
        if ((value[0] != '/' && strcmp(value, "auto") != 0 && strcmp(value, "off") != 0) ||
            strlen(value) >= sizeof o->pipeline_cache) {
            snprintf(err, cap,
                     "option pipeline_cache=%s: expected auto, off or an absolute directory of "
                     "at most %zu bytes",
                     value, sizeof o->pipeline_cache - 1);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        snprintf(o->pipeline_cache, sizeof o->pipeline_cache, "%s", value);
    } else if (strcmp(key, "fault") == 0) {
        return vk_parse_fault(value, o, err, cap);
    } else if (strcmp(key, "disable") == 0) {
        return vk_parse_disable(value, o, err, cap);
    } else {
        snprintf(err, cap,
                 "unknown option '%s' (known: device, timeout_ms, validation, fault, disable, "
                 "path, strided_unroll, packed_unroll, packed_threads, packed_chunk, "
                 "tile_threads, tile_span, max_groups, timing_rounds, staging_mib, loader, "
                 "pipeline_cache)",
                 key);
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_options_parse(const bitcts_abi_create_info *info, bitcts__vk_options *o,
                                 char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->device = BITCTS__VK_DEVICE_AUTO;
    o->timeout_ms = VK_DEFAULT_TIMEOUT_MS;
    o->staging_mib = VK_DEFAULT_STAGING_MIB;
    o->unroll = 1;
    o->packed_unroll = 1;
    o->tile_threads = 0; /* auto */
    o->tile_span = 0;    /* auto */
    snprintf(o->loader, sizeof o->loader, "%s", "libvulkan.so.1");
    snprintf(o->pipeline_cache, sizeof o->pipeline_cache, "%s", "auto");
    if (info == NULL) {
        return BITCTS_ABI_OK;
    }
    if (info->struct_size < sizeof *info ||
        (info->option_count > 0 && (info->option_keys == NULL || info->option_values == NULL))) {
        snprintf(err, cap, "create info malformed or struct_size too small");
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < info->option_count; ++i) {
        if (info->option_keys[i] == NULL || info->option_values[i] == NULL) {
            snprintf(err, cap, "option %u has a NULL key or value", i);
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
        const int32_t rc = vk_parse_one(info->option_keys[i], info->option_values[i], o, err, cap);
        if (rc != BITCTS_ABI_OK) {
            return rc;
        }
    }
    if (o->fault == BITCTS__VK_FAULT_VALIDATION && o->validation == 0) {
        snprintf(err, cap, "option fault=validation needs validation=1");
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    return BITCTS_ABI_OK;
}
