/* SPDX-License-Identifier: MIT */
/* CPU feature detection for the CPU backend: CPUID plus XGETBV (register state the OS saves) on
 * x86, hwcaps on aarch64. The result is a uint64_t mask of BITCTS_CPU_FEAT_* bits, detected
 * once and cached; the cache is the backend's only mutable global and is written once.
 * Thread-safety: every function may be called from any thread at any time. */
#ifndef BITCTS_CPU_CPU_FEATURES_H
#define BITCTS_CPU_CPU_FEATURES_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

#ifdef __cplusplus
extern "C" {
#endif

/* Feature bits. x86 bits are set only when the OS also enables the register state they need. */
#define BITCTS_CPU_FEAT_SSE2 (1ull << 0)
#define BITCTS_CPU_FEAT_AVX2 (1ull << 1)
#define BITCTS_CPU_FEAT_AVX512F (1ull << 2)
#define BITCTS_CPU_FEAT_AVX512BW (1ull << 3)
#define BITCTS_CPU_FEAT_AVX512VL (1ull << 4)
#define BITCTS_CPU_FEAT_AVX512VPOPCNTDQ (1ull << 5)
#define BITCTS_CPU_FEAT_AVX512BITALG (1ull << 6)
#define BITCTS_CPU_FEAT_NEON (1ull << 16)

/** The detected features, computed on the first call and cached (write-once). */
uint64_t bitcts__cpu_features_get(void);

/** Name of one feature bit ("avx512bw"), or NULL when the bit is not a known feature. */
const char *bitcts__cpu_feature_name(uint64_t bit);

/** Writes the names of the bits of mask, separated by spaces, into buf (always NUL-terminated
 * when cap > 0; "none" for an empty mask).
 * @return the length the full text needs, excluding the NUL. */
size_t bitcts__cpu_features_format(uint64_t mask, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
