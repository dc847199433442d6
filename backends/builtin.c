/* SPDX-License-Identifier: MIT */
/* The table of built-in backends. A backend joins it with one line and one include. */
#include <string.h> /* strcmp */

#include "builtin.h"
#include "cpu_backend.h" /* bitcts_cpu_negotiate */
#ifdef BITCTS_HAVE_VULKAN_BACKEND
#include "vk_backend.h" /* bitcts_vulkan_negotiate */
#endif

static const bitcts_builtin_backend builtin_table[] = {
    {"cpu", bitcts_cpu_negotiate,
     "the CPU SIMD backend; cpu:<variant> forces scalar, sse2, avx2, avx512, avx512pop or neon"},
#ifdef BITCTS_HAVE_VULKAN_BACKEND
    {"vulkan", bitcts_vulkan_negotiate,
     "the Vulkan compute backend (docs/vulkan-backend.md); a GPU, or lavapipe without one"},
#endif
    {NULL, NULL, NULL},
};

const bitcts_builtin_backend *bitcts_builtin_backends(void)
{
    return builtin_table;
}

const bitcts_builtin_backend *bitcts_builtin_find(const char *name)
{
    for (const bitcts_builtin_backend *b = builtin_table; name != NULL && b->name != NULL; ++b) {
        if (strcmp(b->name, name) == 0) {
            return b;
        }
    }
    return NULL;
}
