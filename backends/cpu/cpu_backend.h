/* SPDX-License-Identifier: MIT */
/* The CPU backend's entry points: its negotiate function for static linking into the bitcts
 * executable (the same table a MODULE build exports as bitcts_plugin_negotiate) and an options
 * check that explains a refused instance. Thread-safety: negotiate and the options check are
 * reentrant; instances follow the ABI's one-thread-per-instance rule. */
#ifndef BITCTS_CPU_CPU_BACKEND_H
#define BITCTS_CPU_CPU_BACKEND_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int32_t, uint64_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_plugin_negotiation, bitcts_abi_create_info */

#ifdef __cplusplus
extern "C" {
#endif

/** Negotiates ABI 1.0 and hands out the "cpu" backend's table.
 * @param n [in,out] the host's record; chosen_version and table are written.
 * @return BITCTS_ABI_OK, BITCTS_ABI_E_INVALID_ARGUMENT (NULL or short record), or
 *         BITCTS_ABI_E_INCOMPATIBLE (the host's range excludes 1.0). */
int32_t BITCTS_PLUGIN_CALL bitcts_cpu_negotiate(bitcts_plugin_negotiation *n);

/** Checks instance options exactly as instance_create does, without creating anything, and
 * says why they would be refused. The ABI has no instance to carry the text of a failed
 * create, so hosts that link the backend use this (plugins also send it to the host log).
 * @param info [in] options; NULL means defaults.
 * @param err [out] one line naming the problem; "" when the options are accepted.
 * @return BITCTS_ABI_OK, BITCTS_ABI_E_INVALID_ARGUMENT (unknown key, bad value, malformed
 *         info), or BITCTS_ABI_E_NOT_SUPPORTED (unknown variant or one this CPU cannot run). */
int32_t bitcts_cpu_check_options(const bitcts_abi_create_info *info, char *err, size_t err_cap);

/* Instance options (keys of bitcts_abi_create_info):
 *   variant  scalar | sse2 | avx2 | avx512 | avx512pop | neon | auto   (default auto; the
 *            environment variable BITCTS_CPU_VARIANT applies when the option is absent)
 *   threads  an integer 1..256 (default: online processors)
 *   nt       auto | always | never: non-temporal stores (default auto: outputs >= 8 MiB) */
#define BITCTS_CPU_NT_THRESHOLD_BYTES (8u << 20)

/* The streaming extension (BITCTS_ABI_EXT_STREAM, bitcts_plugin.h) runs this instance's own
 * copy and triad kernels: the limits `bitcts bench` measures the operators against. */

#ifdef __cplusplus
}
#endif
#endif
