/* SPDX-License-Identifier: MIT */
/* The "scalar" variant: portable C inner loops over contiguous spans. It fills every slot, so
 * any other variant may leave a slot NULL. Built at the target's baseline without
 * auto-vectorisation, it is the plain one-element-at-a-time path that forced runs compare the
 * SIMD variants against. Elements are handled as unsigned integers of their width. */
#include <stdint.h> /* uint8_t .. uint64_t */
#include <string.h> /* memcpy */

#include "cpu_kernels.h"

enum { SC_AND, SC_OR, SC_XOR };

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
    const uint32_t w = 1u << ((flags & BITCTS__CPU_F_LOG2W_MASK) >> BITCTS__CPU_F_LOG2W_SHIFT);
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
        po[j] = (unsigned char)(op == SC_AND ? (x & y) : op == SC_OR ? (x | y) : (x ^ y));
    }
}

static void sc_and(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    sc_bitwise(SC_AND, out, a, b, n, flags);
}

static void sc_or(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    sc_bitwise(SC_OR, out, a, b, n, flags);
}

static void sc_xor(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    sc_bitwise(SC_XOR, out, a, b, n, flags);
}

static void sc_not(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    (void)b;
    const uint32_t w = 1u << ((flags & BITCTS__CPU_F_LOG2W_MASK) >> BITCTS__CPU_F_LOG2W_SHIFT);
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

static void sc_shl8(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(1, 1, o, a, b, n, f);
}
static void sc_shl16(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(1, 2, o, a, b, n, f);
}
static void sc_shl32(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(1, 4, o, a, b, n, f);
}
static void sc_shl64(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(1, 8, o, a, b, n, f);
}
static void sc_shr8(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(0, 1, o, a, b, n, f);
}
static void sc_shr16(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(0, 2, o, a, b, n, f);
}
static void sc_shr32(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(0, 4, o, a, b, n, f);
}
static void sc_shr64(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    sc_shift(0, 8, o, a, b, n, f);
}

/* SWAR population count of a zero-extended element. */
static inline uint64_t sc_popcount(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (x * UINT64_C(0x0101010101010101)) >> 56;
}

static inline void sc_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    for (size_t i = 0; i < n; ++i) {
        sc_store(po + i * ow, ow, sc_popcount(sc_load(pa + i * w, w)));
    }
}

static void sc_cnt1o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(1, 1, o, a, n);
}
static void sc_cnt1o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(1, 4, o, a, n);
}
static void sc_cnt2o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(2, 1, o, a, n);
}
static void sc_cnt2o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(2, 4, o, a, n);
}
static void sc_cnt4o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(4, 1, o, a, n);
}
static void sc_cnt4o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(4, 4, o, a, n);
}
static void sc_cnt8o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(8, 1, o, a, n);
}
static void sc_cnt8o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b, (void)f;
    sc_count(8, 4, o, a, n);
}

static void sc_copy(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    (void)b, (void)flags;
    memcpy(out, a, n);
}

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

const bitcts__cpu_variant bitcts__cpu_variant_scalar = {
    .name = "scalar",
    .required = 0,
    .priority = 0,
    .kernels =
        {
            .bitwise = {sc_and, sc_or, sc_xor},
            .bit_not = sc_not,
            .shift_left = {sc_shl8, sc_shl16, sc_shl32, sc_shl64},
            .shift_right = {sc_shr8, sc_shr16, sc_shr32, sc_shr64},
            .count = {{sc_cnt1o1, sc_cnt1o4},
                      {sc_cnt2o1, sc_cnt2o4},
                      {sc_cnt4o1, sc_cnt4o4},
                      {sc_cnt8o1, sc_cnt8o4}},
            .stream_copy = sc_copy,
            .stream_triad = sc_triad,
            .nt_fence = sc_fence,
        },
};
