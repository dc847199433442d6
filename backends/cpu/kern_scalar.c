/* SPDX-License-Identifier: MIT */
/* The "scalar" variant: portable C inner loops over contiguous spans. It fills every slot, so
 * any other variant may leave a slot NULL. Built at the target's baseline without
 * auto-vectorisation, it is the plain one-element-at-a-time path that forced runs compare the
 * SIMD variants against. Elements are handled as unsigned integers of their width. */
#include <stdint.h> /* uint8_t .. uint64_t */
#include <string.h> /* memcpy */

#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

/* Typed loads and stores through memcpy: no alignment or aliasing assumptions, and endian-
 * neutral (the value is the element's own integer). */
static inline uint64_t sc_load(const unsigned char *p, uint32_t w)
{
    switch (w) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static inline void sc_store(unsigned char *p, uint32_t w, uint64_t v)
{
    switch (w) {
    case 1: {
        const uint8_t t = (uint8_t)v;
        memcpy(p, &t, 1);
        break;
    }
    case 2: {
        const uint16_t t = (uint16_t)v;
        memcpy(p, &t, 2);
        break;
    }
    case 4: {
        const uint32_t t = (uint32_t)v;
        memcpy(p, &t, 4);
        break;
    }
    default: memcpy(p, &v, 8); break;
    }
}

/* Bitwise AND/OR/XOR work on bytes whatever the width. The three operators commute, so a scalar
 * operand is always B, replicated into a pattern read at (j & 7). */
static void sc_bitwise(int op, void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    const uint32_t w = bitcts__cpu_kern_width(flags);
    unsigned char pattern[16];
    const bitcts__cpu_operands ops = bitcts__cpu_operands_of(w, 8, 1, pattern, a, b, flags);
    unsigned char *po = out;
    const size_t nbytes = n * w;
    for (size_t j = 0; j < nbytes; ++j) {
        const unsigned char x = ops.a[j];
        const unsigned char y = ops.b[j & ops.bmask];
        po[j] = (unsigned char)(op == BITCTS__CPU_KOP_AND  ? (x & y)
                                : op == BITCTS__CPU_KOP_OR ? (x | y)
                                                           : (x ^ y));
    }
}

static inline void sc_not(uint32_t w, void *out, const void *a, size_t n)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    for (size_t j = 0; j < n * w; ++j) {
        po[j] = (unsigned char)~pa[j];
    }
}

/* A count >= the width gives 0 (the backend's documented choice); the test before the shift
 * also keeps C's shift within its defined range. */
static inline uint64_t sc_shift_one(int left, uint32_t bits, uint64_t v, uint64_t count)
{
    if (count >= bits) {
        return 0;
    }
    if (!left) {
        return v >> count;
    }
    const uint64_t r = v << count;
    return bits == 64 ? r : r & ((UINT64_C(1) << bits) - 1);
}

static inline void sc_shift(int left, uint32_t w, void *out, const void *a, const void *b, size_t n,
                            uint32_t flags)
{
    const size_t astep = (flags & BITCTS__CPU_F_A_SCALAR) ? 0 : w;
    const size_t bstep = (flags & BITCTS__CPU_F_B_SCALAR) ? 0 : w;
    unsigned char *po = out;
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    for (size_t i = 0; i < n; ++i) {
        sc_store(po, w, sc_shift_one(left, 8 * w, sc_load(pa, w), sc_load(pb, w)));
        po += w;
        pa += astep;
        pb += bstep;
    }
}

/* The same-width skeleton of kern_stamp.h: one plain loop per operator, chosen by a constant. */
BITCTS__CPU_INLINE void sc_binary(int op, uint32_t w, void *out, const void *a, const void *b,
                                  size_t n, uint32_t flags)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND:
    case BITCTS__CPU_KOP_OR:
    case BITCTS__CPU_KOP_XOR: sc_bitwise(op, out, a, b, n, flags); break; /* width from flags */
    case BITCTS__CPU_KOP_NOT: sc_not(w, out, a, n); break;
    case BITCTS__CPU_KOP_COPY: memcpy(out, a, n * w); break;
    case BITCTS__CPU_KOP_SHL8:
    case BITCTS__CPU_KOP_SHL16:
    case BITCTS__CPU_KOP_SHL32:
    case BITCTS__CPU_KOP_SHL64: sc_shift(1, w, out, a, b, n, flags); break;
    default: sc_shift(0, w, out, a, b, n, flags); break;
    }
}

static inline void sc_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n,
                            uint32_t flags)
{
    (void)flags;
    bitcts__cpu_count_elements(w, ow, out, a, n);
}

/* The streaming limit out = a + 3 * b (n uint64 words); copy is memcpy. */
static void sc_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    (void)flags;
    bitcts__cpu_triad_words(out, a, b, 0, n);
}

/* The scalar kernels store normally: there is nothing to fence. */
static void sc_fence(void) {}

/* No transpose: the walk gathers in portable C. */
BITCTS__CPU_STAMP_VARIANT(scalar, sc, 0, 0, sc_fence, BITWISE, SHIFTS, COUNT, STREAM, NO_TRANSPOSE,
                          NO_SHAPED);
