/* SPDX-License-Identifier: MIT */
/* Detects the CPU features the kernel variants need. x86: CPUID leaves 1 and 7 for the
 * instruction sets, and XGETBV(0) for the YMM/ZMM state the OS saves on context switches
 * (an AVX-512 CPU under an OS that does not save ZMM state must not run AVX-512 code).
 * aarch64: AT_HWCAP on Linux; NEON is architectural elsewhere. Cached once (write-once). */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* getauxval */
#endif

#include "cpu_features.h"

#include <string.h> /* memcpy */

#if !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h> /* atomic_load_explicit: the write-once cache */
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h> /* __get_cpuid_count */
#define BITCTS_CPU_X86_GNU 1
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h> /* __cpuidex, _xgetbv */
#define BITCTS_CPU_X86_MSVC 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h> /* getauxval */
#endif

/* Marks the cache as filled; no feature uses bit 63. */
#define CPU_FEATURES_VALID (1ull << 63)

typedef struct cpu_feature_entry {
    uint64_t bit;
    const char *name;
} cpu_feature_entry;

static const cpu_feature_entry cpu_feature_names[] = {
    {BITCTS_CPU_FEAT_SSE2, "sse2"},
    {BITCTS_CPU_FEAT_AVX2, "avx2"},
    {BITCTS_CPU_FEAT_AVX512F, "avx512f"},
    {BITCTS_CPU_FEAT_AVX512BW, "avx512bw"},
    {BITCTS_CPU_FEAT_AVX512VL, "avx512vl"},
    {BITCTS_CPU_FEAT_AVX512VPOPCNTDQ, "avx512vpopcntdq"},
    {BITCTS_CPU_FEAT_AVX512BITALG, "avx512bitalg"},
    {BITCTS_CPU_FEAT_NEON, "neon"},
};

#if defined(BITCTS_CPU_X86_GNU) || defined(BITCTS_CPU_X86_MSVC)
static void cpu_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
#if defined(BITCTS_CPU_X86_GNU)
    unsigned int a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(leaf, sub, &a, &b, &c, &d)) {
        a = b = c = d = 0;
    }
    r[0] = a;
    r[1] = b;
    r[2] = c;
    r[3] = d;
#else
    int regs[4];
    __cpuidex(regs, (int)leaf, (int)sub);
    memcpy(r, regs, sizeof regs);
#endif
}

static uint64_t cpu_xgetbv0(void)
{
#if defined(BITCTS_CPU_X86_GNU)
    uint32_t lo = 0, hi = 0;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
#else
    return (uint64_t)_xgetbv(0);
#endif
}

static uint64_t cpu_detect(void)
{
    uint32_t r[4];
    cpu_cpuid(0, 0, r);
    const uint32_t max_leaf = r[0];
    if (max_leaf < 1) {
        return 0;
    }
    cpu_cpuid(1, 0, r);
    uint64_t mask = 0;
    if (r[3] & (1u << 26)) {
        mask |= BITCTS_CPU_FEAT_SSE2;
    }
    const int osxsave = (r[2] & (1u << 27)) != 0;
    const int avx = (r[2] & (1u << 28)) != 0;
    const uint64_t xcr0 = osxsave ? cpu_xgetbv0() : 0;
    /* XCR0 bits 1-2: SSE and AVX state; 5-7: opmask, ZMM0-15 upper halves, ZMM16-31. */
    const int ymm_ok = avx && (xcr0 & 0x6u) == 0x6u;
    const int zmm_ok = ymm_ok && (xcr0 & 0xE0u) == 0xE0u;
    if (max_leaf < 7 || !ymm_ok) {
        return mask;
    }
    cpu_cpuid(7, 0, r);
    if (r[1] & (1u << 5)) {
        mask |= BITCTS_CPU_FEAT_AVX2;
    }
    if (!zmm_ok || !(r[1] & (1u << 16))) {
        return mask;
    }
    mask |= BITCTS_CPU_FEAT_AVX512F;
    if (r[1] & (1u << 30)) {
        mask |= BITCTS_CPU_FEAT_AVX512BW;
    }
    if (r[1] & (1u << 31)) {
        mask |= BITCTS_CPU_FEAT_AVX512VL;
    }
    if (r[2] & (1u << 14)) {
        mask |= BITCTS_CPU_FEAT_AVX512VPOPCNTDQ;
    }
    if (r[2] & (1u << 12)) {
        mask |= BITCTS_CPU_FEAT_AVX512BITALG;
    }
    return mask;
}
#elif defined(__aarch64__)
static uint64_t cpu_detect(void)
{
#if defined(__linux__)
    /* HWCAP_ASIMD is bit 1 of AT_HWCAP on arm64 Linux. */
    return (getauxval(AT_HWCAP) & (1ul << 1)) ? BITCTS_CPU_FEAT_NEON : 0;
#else
    return BITCTS_CPU_FEAT_NEON; /* Advanced SIMD is mandatory in AArch64 */
#endif
}
#else
static uint64_t cpu_detect(void)
{
    return 0;
}
#endif

#if !defined(__STDC_NO_ATOMICS__)
static _Atomic uint64_t cpu_features_cache;
#else
/* Fallback without C11 atomics: detection is idempotent, so a racing second writer stores the
 * same value; an aligned 64-bit store is single-copy atomic on every supported target. */
static volatile uint64_t cpu_features_cache;
#endif

uint64_t bitcts__cpu_features_get(void)
{
#if !defined(__STDC_NO_ATOMICS__)
    uint64_t v = atomic_load_explicit(&cpu_features_cache, memory_order_relaxed);
#else
    uint64_t v = cpu_features_cache;
#endif
    if (v & CPU_FEATURES_VALID) {
        return v & ~CPU_FEATURES_VALID;
    }
    v = cpu_detect() | CPU_FEATURES_VALID;
#if !defined(__STDC_NO_ATOMICS__)
    atomic_store_explicit(&cpu_features_cache, v, memory_order_relaxed);
#else
    cpu_features_cache = v;
#endif
    return v & ~CPU_FEATURES_VALID;
}

const char *bitcts__cpu_feature_name(uint64_t bit)
{
    for (size_t i = 0; i < sizeof cpu_feature_names / sizeof cpu_feature_names[0]; ++i) {
        if (cpu_feature_names[i].bit == bit) {
            return cpu_feature_names[i].name;
        }
    }
    return NULL;
}

size_t bitcts__cpu_features_format(uint64_t mask, char *buf, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < sizeof cpu_feature_names / sizeof cpu_feature_names[0]; ++i) {
        if (!(mask & cpu_feature_names[i].bit)) {
            continue;
        }
        const char *name = cpu_feature_names[i].name;
        const size_t n = strlen(name);
        if (len > 0) {
            if (len + 1 < cap) {
                buf[len] = ' ';
            }
            ++len;
        }
        if (len < cap) {
            const size_t room = cap - len - 1;
            memcpy(buf + len, name, n < room ? n : room);
        }
        len += n;
    }
    if (len == 0 && cap > 0) {
        const char none[] = "none";
        const size_t n = cap - 1 < 4 ? cap - 1 : 4;
        memcpy(buf, none, n);
        buf[n] = '\0';
        return 4;
    }
    if (cap > 0) {
        buf[len < cap ? len : cap - 1] = '\0';
    }
    return len;
}
