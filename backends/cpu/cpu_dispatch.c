/* SPDX-License-Identifier: MIT */
/* The variant table and its selection rules (house style section 7): the first variant, in
 * priority order, whose required mask is a subset of the detected one; a forced name that is
 * unknown or unsupported is an error, never a fallback. NULL slots come from the next lower
 * supported variant, so "avx512pop" runs AVX-512 VPOPCNT counts and "avx512" for the rest. */
#include "cpu_dispatch.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_plugin.h" /* BITCTS_ABI_* status values */
#include "cpu_features.h"

/* The ISA files carry their own flags; the baseline must not already enable them, or the
 * "scalar" and "sse2" variants would silently contain AVX code. */
#if (defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__)) &&                             \
    !defined(BITCTS_CPU_ALLOW_NATIVE)
#error "global flags enable AVX-class ISAs (e.g. -march=native): define BITCTS_CPU_ALLOW_NATIVE"
#endif

/* The ISA variants compiled in. CMake defines BITCTS_CPU_EXPLICIT_VARIANTS and one
 * BITCTS_CPU_WITH_<NAME> per variant it builds (option BITCTS_CPU_VARIANTS); a build without
 * them (a plain compiler command) gets every variant of its architecture. */
#if !defined(BITCTS_CPU_EXPLICIT_VARIANTS)
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define BITCTS_CPU_WITH_SSE2 1
#define BITCTS_CPU_WITH_AVX2 1
#define BITCTS_CPU_WITH_AVX512 1
#define BITCTS_CPU_WITH_AVX512POP 1
#elif defined(__aarch64__)
#define BITCTS_CPU_WITH_NEON 1
#endif
#endif

static const bitcts__cpu_variant *const dispatch_variants[] = {
#if defined(BITCTS_CPU_WITH_AVX512POP)
    &bitcts__cpu_variant_avx512pop,
#endif
#if defined(BITCTS_CPU_WITH_AVX512)
    &bitcts__cpu_variant_avx512,
#endif
#if defined(BITCTS_CPU_WITH_AVX2)
    &bitcts__cpu_variant_avx2,
#endif
#if defined(BITCTS_CPU_WITH_SSE2)
    &bitcts__cpu_variant_sse2,
#endif
#if defined(BITCTS_CPU_WITH_NEON)
    &bitcts__cpu_variant_neon,
#endif
    &bitcts__cpu_variant_scalar,
};

#define DISPATCH_COUNT (sizeof dispatch_variants / sizeof dispatch_variants[0])

/* Every name the backend knows on any build, to tell "not built here" from "unknown". */
static const char *const dispatch_known_names[] = {"scalar", "sse2",      "avx2",
                                                   "avx512", "avx512pop", "neon"};

static int dispatch_supported(const bitcts__cpu_variant *v, uint64_t features)
{
    return (v->required & ~features) == 0;
}

static void dispatch_fill(bitcts__cpu_kernel_fn **slot, bitcts__cpu_kernel_fn *from)
{
    if (*slot == NULL) {
        *slot = from;
    }
}

static void dispatch_fill_fence(bitcts__cpu_fence_fn **slot, bitcts__cpu_fence_fn *from)
{
    if (*slot == NULL) {
        *slot = from;
    }
}

/* Fills the NULL slots of k from v. */
static void dispatch_merge(bitcts__cpu_kernels *k, const bitcts__cpu_kernels *v)
{
    for (int i = 0; i < 3; ++i) {
        dispatch_fill(&k->bitwise[i], v->bitwise[i]);
    }
    dispatch_fill(&k->bit_not, v->bit_not);
    for (int i = 0; i < 4; ++i) {
        dispatch_fill(&k->shift_left[i], v->shift_left[i]);
        dispatch_fill(&k->shift_right[i], v->shift_right[i]);
        dispatch_fill(&k->count[i][0], v->count[i][0]);
        dispatch_fill(&k->count[i][1], v->count[i][1]);
    }
    dispatch_fill(&k->stream_copy, v->stream_copy);
    dispatch_fill(&k->stream_triad, v->stream_triad);
    for (int i = 0; i < 3; ++i) {
        dispatch_fill(&k->stream_widen[i], v->stream_widen[i]);
        dispatch_fill(&k->stream_narrow[i], v->stream_narrow[i]);
    }
    dispatch_fill_fence(&k->nt_fence, v->nt_fence);
    for (int i = 0; i < 4; ++i) {
        if (k->transpose[i] == NULL) {
            k->transpose[i] = v->transpose[i];
        }
    }
}

static int dispatch_complete(const bitcts__cpu_kernels *k)
{
    int ok = k->bit_not != NULL && k->stream_copy != NULL && k->stream_triad != NULL &&
             k->nt_fence != NULL;
    for (int i = 0; i < 3; ++i) {
        ok &= k->bitwise[i] != NULL;
    }
    for (int i = 0; i < 4; ++i) {
        ok &= k->shift_left[i] != NULL && k->shift_right[i] != NULL;
        ok &= k->count[i][0] != NULL && k->count[i][1] != NULL;
    }
    return ok;
}

/* The supported variant of highest priority below `below` (INT32_MAX: any). */
static const bitcts__cpu_variant *dispatch_best(uint64_t features, int32_t below)
{
    const bitcts__cpu_variant *best = NULL;
    for (size_t i = 0; i < DISPATCH_COUNT; ++i) {
        const bitcts__cpu_variant *v = dispatch_variants[i];
        if (dispatch_supported(v, features) && v->priority < below &&
            (best == NULL || v->priority > best->priority)) {
            best = v;
        }
    }
    return best;
}

static int32_t dispatch_explain(const char *name, uint64_t features, char *err, size_t cap)
{
    for (size_t i = 0; i < DISPATCH_COUNT; ++i) {
        const bitcts__cpu_variant *v = dispatch_variants[i];
        if (strcmp(v->name, name) != 0) {
            continue;
        }
        char missing[160];
        size_t len = 0;
        missing[0] = '\0';
        for (int bit = 0; bit < 64; ++bit) {
            const uint64_t b = 1ull << bit;
            if ((v->required & b) && !(features & b) && len < sizeof missing) {
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s",
                                        len ? " and " : "", bitcts__cpu_feature_name(b));
            }
        }
        snprintf(err, cap, "variant %s needs %s, which this CPU lacks", name, missing);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    for (size_t i = 0; i < sizeof dispatch_known_names / sizeof dispatch_known_names[0]; ++i) {
        if (strcmp(dispatch_known_names[i], name) == 0) {
            snprintf(err, cap,
                     "variant %s is not built into this backend (other architecture, or left "
                     "out of BITCTS_CPU_VARIANTS)",
                     name);
            return BITCTS_ABI_E_NOT_SUPPORTED;
        }
    }
    snprintf(err, cap,
             "unknown variant '%s' (known: auto, scalar, sse2, avx2, avx512, avx512pop, neon)",
             name);
    return BITCTS_ABI_E_INVALID_ARGUMENT; /* a typing error; a known one is not supported */
}

int32_t bitcts__cpu_dispatch_select(const char *name, uint64_t features,
                                    const bitcts__cpu_variant **out_variant,
                                    bitcts__cpu_kernels *out_kernels, char *err, size_t err_cap)
{
    const bitcts__cpu_variant *chosen = NULL;
    if (name == NULL || strcmp(name, "auto") == 0) {
        chosen = dispatch_best(features, INT32_MAX);
    } else {
        for (size_t i = 0; i < DISPATCH_COUNT; ++i) {
            const bitcts__cpu_variant *v = dispatch_variants[i];
            if (strcmp(v->name, name) == 0 && dispatch_supported(v, features)) {
                chosen = v;
            }
        }
        if (chosen == NULL) {
            return dispatch_explain(name, features, err, err_cap);
        }
    }
    *out_variant = chosen;
    *out_kernels = chosen->kernels;
    for (const bitcts__cpu_variant *v = dispatch_best(features, chosen->priority); v != NULL;
         v = dispatch_best(features, v->priority)) {
        dispatch_merge(out_kernels, &v->kernels);
    }
    if (!dispatch_complete(out_kernels)) {
        snprintf(err, err_cap, "variant %s has kernel slots no lower variant fills", chosen->name);
        return BITCTS_ABI_E_BACKEND_FAILED;
    }
    return BITCTS_ABI_OK;
}

size_t bitcts__cpu_dispatch_list(uint64_t features, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap > 0) {
        buf[0] = '\0';
    }
    for (const bitcts__cpu_variant *v = dispatch_best(features, INT32_MAX); v != NULL;
         v = dispatch_best(features, v->priority)) {
        const int n = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%s",
                               len ? " " : "", v->name);
        len += n > 0 ? (size_t)n : 0;
    }
    return len;
}
