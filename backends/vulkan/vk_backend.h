/* SPDX-License-Identifier: MIT */
/* The Vulkan backend's entry point: its negotiate function, for linking the backend into the
 * bitcts executable (a MODULE build exports the same table as bitcts_plugin_negotiate).
 * Thread-safety: negotiate may be called once per load; instances follow the ABI's
 * one-thread-per-instance rule, and different instances may run on different threads. */
#ifndef BITCTS_VULKAN_VK_BACKEND_H
#define BITCTS_VULKAN_VK_BACKEND_H

#include <stdint.h> /* int32_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_plugin_negotiation */

#ifdef __cplusplus
extern "C" {
#endif

/** Negotiates ABI 1.0 and hands out the "vulkan" backend's table.
 * @param n [in,out] the host's record; chosen_version and table are written, the host
 *          services are retained until plugin_shutdown.
 * @return BITCTS_ABI_OK, BITCTS_ABI_E_INVALID_ARGUMENT (NULL or short record), or
 *         BITCTS_ABI_E_INCOMPATIBLE (the host's range excludes 1.0). */
int32_t BITCTS_PLUGIN_CALL bitcts_vulkan_negotiate(bitcts_plugin_negotiation *n);

/* Instance options (keys of bitcts_abi_create_info; docs/vulkan-backend.md):
 *   device       auto | N: the physical device (auto: the first discrete GPU, else
 *                integrated, virtual, CPU)
 *   timeout_ms   1..3600000: deadline of one submission (default 20000)
 *   validation   0 | 1: VK_LAYER_KHRONOS_validation; any message fails the call it came in
 *   fault        none | hang | oom | lost | validation: fault injection for tests
 *   disable      storage8,storage16: run as if the device lacked these features
 *   path         auto | strided: strided runs every operator on the general shader
 *   staging_mib  1..4096: largest staging buffer (default 64); larger transfers go in pieces
 *   strided_unroll, packed_unroll, packed_threads, packed_chunk, tile_threads, max_groups:
 *                shader tuning
 *   loader       the Vulkan loader library to open (default libvulkan.so.1)
 *   pipeline_cache  auto | off | DIR: the file of compiled pipelines kept across processes
 *                (auto: $XDG_CACHE_HOME/bitcts, else $HOME/.cache/bitcts; vk_pcache.c)
 * instance_create fails with BITCTS_ABI_E_NOT_SUPPORTED when there is no loader or no
 * usable device, explaining why through the host's log callback. */

#ifdef __cplusplus
}
#endif
#endif
