/* SPDX-License-Identifier: MIT */
/* BITCTS__CPU_STAMP_VARIANT, which writes out an ISA's per-operator entry points and its variant
 * record from the loop skeletons of its kern_<isa>.c, and the operator codes those skeletons
 * switch on. Included only by the kern_<isa>.c units; it holds no intrinsics.
 * Thread-safety: stateless; the entry points touch only their arguments. */
#ifndef BITCTS_CPU_KERN_STAMP_H
#define BITCTS_CPU_KERN_STAMP_H

#include <stddef.h> /* size_t, NULL */
#include <stdint.h> /* uint32_t */

#include "cpu_kernels.h" /* bitcts__cpu_variant, BITCTS__CPU_F_*, BITCTS__CPU_INLINE */

/* The operator a same-width skeleton computes. Entry points pass one of these as a constant,
 * so once the skeleton is inlined no switch on it remains in the inner loop. */
enum {
    BITCTS__CPU_KOP_AND,
    BITCTS__CPU_KOP_OR,
    BITCTS__CPU_KOP_XOR,
    BITCTS__CPU_KOP_NOT,
    BITCTS__CPU_KOP_COPY,
    BITCTS__CPU_KOP_SHL8,
    BITCTS__CPU_KOP_SHL16,
    BITCTS__CPU_KOP_SHL32,
    BITCTS__CPU_KOP_SHL64,
    BITCTS__CPU_KOP_SHR8,
    BITCTS__CPU_KOP_SHR16,
    BITCTS__CPU_KOP_SHR32,
    BITCTS__CPU_KOP_SHR64
};

/* Bytes per element of the width-agnostic bitwise kernels, from their flags. */
static inline uint32_t bitcts__cpu_kern_width(uint32_t flags)
{
    return 1u << ((flags & BITCTS__CPU_F_LOG2W_MASK) >> BITCTS__CPU_F_LOG2W_SHIFT);
}

/* BITCTS__CPU_STAMP_VARIANT(isa, p, required, priority, fence, bitwise, shifts, count, stream,
 *                           transpose, shaped)
 * defines the const variant record bitcts__cpu_variant_<isa> (name "<isa>") and, for each
 * family it provides, the static entry points <isa>_and, <isa>_shl8, <isa>_cnt1o4, ... that
 * fill its slots. Each family argument is its name (BITWISE, SHIFTS, COUNT, STREAM, TRANSPOSE)
 * or NO_<name>, which leaves those slots NULL for a lower variant to fill (SHAPED too). An entry
 * point is one call to the unit's skeleton with constant selectors; the skeletons, prefixed p, are
 * BITCTS__CPU_INLINE functions of the unit:
 *   BITWISE, SHIFTS, STREAM: p_binary(int kop, uint32_t w, void *out, const void *a,
 *                            const void *b, size_t n, uint32_t flags) for the BITCTS__CPU_KOP_*
 *                            codes (NOT and COPY get b NULL and flags reduced to NT; COPY w 1)
 *   COUNT:                   p_count(uint32_t w, uint32_t ow, void *out, const void *a,
 *                            size_t n, uint32_t flags)
 *   STREAM:                  p_triad, a bitcts__cpu_kernel_fn itself
 *   TRANSPOSE:               p_transpose(uint32_t w, then the bitcts__cpu_transpose_fn
 *                            arguments)
 *   SHAPED:                  p_shaped(int widen, uint32_t ratio, void *out, const void *a,
 *                            size_t n, uint32_t flags), n 64-byte units
 * fence is the variant's nt_fence (a function or NULL). Invoke it once, at the end of the unit,
 * followed by a semicolon. */
/* clang-format off */
#define BITCTS__CPU_STAMP_VARIANT(isa, p, required_, priority_, fence, bitwise, shifts, count, \
                                  stream, transpose, shaped)                                   \
    BITCTS__CPU_STAMP_FNS_##bitwise(isa, p)                                                    \
    BITCTS__CPU_STAMP_FNS_##shifts(isa, p)                                                     \
    BITCTS__CPU_STAMP_FNS_##count(isa, p)                                                      \
    BITCTS__CPU_STAMP_FNS_##stream(isa, p)                                                     \
    BITCTS__CPU_STAMP_FNS_##transpose(isa, p)                                                  \
    BITCTS__CPU_STAMP_FNS_##shaped(isa, p)                                                     \
    const bitcts__cpu_variant bitcts__cpu_variant_##isa = {                                    \
        .name = #isa,                                                                          \
        .required = (required_),                                                               \
        .priority = (priority_),                                                               \
        .kernels = {                                                                           \
            BITCTS__CPU_STAMP_SLOTS_##bitwise(isa)                                             \
            BITCTS__CPU_STAMP_SLOTS_##shifts(isa)                                              \
            BITCTS__CPU_STAMP_SLOTS_##count(isa)                                               \
            BITCTS__CPU_STAMP_SLOTS_##stream(isa, p)                                           \
            BITCTS__CPU_STAMP_SLOTS_##transpose(isa)                                           \
            BITCTS__CPU_STAMP_SLOTS_##shaped(isa)                                              \
            .nt_fence = (fence),                                                               \
        },                                                                                     \
    }

/* One kernel entry point whose body is the given call; b is unused by the unary operators. */
#define BITCTS__CPU_STAMP_KERNEL(fn, call)                                      \
    static void fn(void *o, const void *a, const void *b, size_t n, uint32_t f) \
    {                                                                           \
        (void)b;                                                                \
        call;                                                                   \
    }

/* One transpose entry point for elements of w bytes. */
#define BITCTS__CPU_STAMP_TRANSPOSE(fn, p, w)                                                \
    static size_t fn(void *d, size_t ds, const void *s, size_t ss, size_t lines, size_t len) \
    {                                                                                        \
        return p##_transpose(w, d, ds, s, ss, lines, len);                                   \
    }

/* The same-width skeleton with the element width from the flags (NOT: no B, only NT). */
#define BITCTS__CPU_STAMP_BITWISE_(p, kop) \
    p##_binary(kop, bitcts__cpu_kern_width(f), o, a, b, n, f)
#define BITCTS__CPU_STAMP_FNS_BITWISE(isa, p)                                                \
    BITCTS__CPU_STAMP_KERNEL(isa##_and, BITCTS__CPU_STAMP_BITWISE_(p, BITCTS__CPU_KOP_AND))  \
    BITCTS__CPU_STAMP_KERNEL(isa##_or, BITCTS__CPU_STAMP_BITWISE_(p, BITCTS__CPU_KOP_OR))    \
    BITCTS__CPU_STAMP_KERNEL(isa##_xor, BITCTS__CPU_STAMP_BITWISE_(p, BITCTS__CPU_KOP_XOR))  \
    BITCTS__CPU_STAMP_KERNEL(isa##_not, p##_binary(BITCTS__CPU_KOP_NOT,                      \
                                                   bitcts__cpu_kern_width(f), o, a, NULL, n, \
                                                   f & BITCTS__CPU_F_NT))
#define BITCTS__CPU_STAMP_SLOTS_BITWISE(isa) \
    .bitwise = {isa##_and, isa##_or, isa##_xor}, .bit_not = isa##_not,

#define BITCTS__CPU_STAMP_FNS_SHIFTS(isa, p)                                                   \
    BITCTS__CPU_STAMP_KERNEL(isa##_shl8, p##_binary(BITCTS__CPU_KOP_SHL8, 1, o, a, b, n, f))   \
    BITCTS__CPU_STAMP_KERNEL(isa##_shl16, p##_binary(BITCTS__CPU_KOP_SHL16, 2, o, a, b, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_shl32, p##_binary(BITCTS__CPU_KOP_SHL32, 4, o, a, b, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_shl64, p##_binary(BITCTS__CPU_KOP_SHL64, 8, o, a, b, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_shr8, p##_binary(BITCTS__CPU_KOP_SHR8, 1, o, a, b, n, f))   \
    BITCTS__CPU_STAMP_KERNEL(isa##_shr16, p##_binary(BITCTS__CPU_KOP_SHR16, 2, o, a, b, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_shr32, p##_binary(BITCTS__CPU_KOP_SHR32, 4, o, a, b, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_shr64, p##_binary(BITCTS__CPU_KOP_SHR64, 8, o, a, b, n, f))
#define BITCTS__CPU_STAMP_SLOTS_SHIFTS(isa)                            \
    .shift_left = {isa##_shl8, isa##_shl16, isa##_shl32, isa##_shl64}, \
    .shift_right = {isa##_shr8, isa##_shr16, isa##_shr32, isa##_shr64},

#define BITCTS__CPU_STAMP_FNS_COUNT(isa, p)                             \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt1o1, p##_count(1, 1, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt1o4, p##_count(1, 4, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt2o1, p##_count(2, 1, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt2o4, p##_count(2, 4, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt4o1, p##_count(4, 1, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt4o4, p##_count(4, 4, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt8o1, p##_count(8, 1, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_cnt8o4, p##_count(8, 4, o, a, n, f))
#define BITCTS__CPU_STAMP_SLOTS_COUNT(isa)  \
    .count = {{isa##_cnt1o1, isa##_cnt1o4}, \
              {isa##_cnt2o1, isa##_cnt2o4}, \
              {isa##_cnt4o1, isa##_cnt4o4}, \
              {isa##_cnt8o1, isa##_cnt8o4}},

#define BITCTS__CPU_STAMP_FNS_STREAM(isa, p)                                       \
    BITCTS__CPU_STAMP_KERNEL(isa##_copy, p##_binary(BITCTS__CPU_KOP_COPY, 1, o, a, \
                                                    NULL, n, f & BITCTS__CPU_F_NT))
#define BITCTS__CPU_STAMP_SLOTS_STREAM(isa, p) \
    .stream_copy = isa##_copy, .stream_triad = p##_triad,

#define BITCTS__CPU_STAMP_FNS_TRANSPOSE(isa, p)  \
    BITCTS__CPU_STAMP_TRANSPOSE(isa##_tr1, p, 1) \
    BITCTS__CPU_STAMP_TRANSPOSE(isa##_tr2, p, 2) \
    BITCTS__CPU_STAMP_TRANSPOSE(isa##_tr4, p, 4) \
    BITCTS__CPU_STAMP_TRANSPOSE(isa##_tr8, p, 8)
#define BITCTS__CPU_STAMP_SLOTS_TRANSPOSE(isa) \
    .transpose = {isa##_tr1, isa##_tr2, isa##_tr4, isa##_tr8},

/* The shaped stream's entry points of one direction, ratios 2, 4 and 8. */
#define BITCTS__CPU_STAMP_SHAPED_(isa, p, dir, widen)                          \
    BITCTS__CPU_STAMP_KERNEL(isa##_##dir##2, p##_shaped(widen, 2, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_##dir##4, p##_shaped(widen, 4, o, a, n, f)) \
    BITCTS__CPU_STAMP_KERNEL(isa##_##dir##8, p##_shaped(widen, 8, o, a, n, f))
#define BITCTS__CPU_STAMP_FNS_SHAPED(isa, p) \
    BITCTS__CPU_STAMP_SHAPED_(isa, p, widen, 1) BITCTS__CPU_STAMP_SHAPED_(isa, p, narrow, 0)
#define BITCTS__CPU_STAMP_SLOTS_SHAPED(isa)                                 \
    .stream_widen = {isa##_widen2, isa##_widen4, isa##_widen8},             \
    .stream_narrow = {isa##_narrow2, isa##_narrow4, isa##_narrow8},

/* A family left to lower variants: no entry points, NULL slots. */
#define BITCTS__CPU_STAMP_FNS_NO_BITWISE(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_BITWISE(isa)
#define BITCTS__CPU_STAMP_FNS_NO_SHIFTS(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_SHIFTS(isa)
#define BITCTS__CPU_STAMP_FNS_NO_COUNT(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_COUNT(isa)
#define BITCTS__CPU_STAMP_FNS_NO_STREAM(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_STREAM(isa, p)
#define BITCTS__CPU_STAMP_FNS_NO_TRANSPOSE(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_TRANSPOSE(isa)
#define BITCTS__CPU_STAMP_FNS_NO_SHAPED(isa, p)
#define BITCTS__CPU_STAMP_SLOTS_NO_SHAPED(isa)
/* clang-format on */

#endif
