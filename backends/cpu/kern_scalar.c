/* SPDX-License-Identifier: MIT */
/* The "scalar" variant: portable C inner loops over contiguous spans. It fills every slot, so
 * any other variant may leave a slot NULL. Built at the target's baseline without
 * auto-vectorisation, it is the plain one-element-at-a-time path that forced runs compare the
 * SIMD variants against. Elements are handled as unsigned integers of their width. */
#include <stdint.h> /* uint8_t .. uint64_t */
#include <string.h> /* memcpy */

#include "cpu_kernels.h"
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

/* Bitwise AND/OR/XOR work on bytes whatever the width. A scalar operand is replicated into an
 * 8-byte pattern indexed with (j & 7); a vector operand is indexed with (j & SIZE_MAX). */
static void sc_bitwise(int op, void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    const uint32_t w = bitcts__cpu_kern_width(flags);
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    unsigned char pattern[8];
    size_t bmask = SIZE_MAX;
    if (flags & BITCTS__CPU_F_A_SCALAR) { /* the three operators commute */
        pa = b;
        pb = a;
    }
    if (flags & (BITCTS__CPU_F_A_SCALAR | BITCTS__CPU_F_B_SCALAR)) {
        for (uint32_t k = 0; k < 8; k += w) {
            memcpy(pattern + k, pb, w);
        }
        pb = pattern;
        bmask = 7;
    }
    unsigned char *po = out;
    const size_t nbytes = n * w;
    for (size_t j = 0; j < nbytes; ++j) {
        const unsigned char x = pa[j];
        const unsigned char y = pb[j & bmask];
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

/* SWAR population count of a zero-extended element. */
static inline uint64_t sc_popcount(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (x * UINT64_C(0x0101010101010101)) >> 56;
}

static inline void sc_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n,
                            uint32_t flags)
{
    (void)flags;
    unsigned char *po = out;
    const unsigned char *pa = a;
    for (size_t i = 0; i < n; ++i) {
        sc_store(po + i * ow, ow, sc_popcount(sc_load(pa + i * w, w)));
    }
}

/* The streaming limit out = a + 3 * b (n uint64 words); copy is memcpy. */
static void sc_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    (void)flags;
    unsigned char *po = out;
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    for (size_t i = 0; i < n; ++i) {
        uint64_t x, y;
        memcpy(&x, pa + 8 * i, 8);
        memcpy(&y, pb + 8 * i, 8);
        x += 3 * y;
        memcpy(po + 8 * i, &x, 8);
    }
}

/* The scalar kernels store normally: there is nothing to fence. */
static void sc_fence(void) {}

/* No transpose: the walk gathers in portable C. */
BITCTS__CPU_STAMP_VARIANT(scalar, sc, 0, 0, sc_fence, BITWISE, SHIFTS, COUNT, STREAM, NO_TRANSPOSE);
