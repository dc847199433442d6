/* SPDX-License-Identifier: MIT */
/* The parts of the "avx2" and "avx512" units that differ only in the vector width: the shift of
 * sub-lanes as the two halves of a lane, the operator switch, the same-width skeleton p_binary
 * of kern_stamp.h with its streaming path, the triad's vector loop and the transpose's register
 * block. The including
 * unit is compiled with its ISA's flags and first defines: KW_BITS, 256 or 512, which names the
 * vector type __m<KW_BITS>i and the intrinsics _mm<KW_BITS>_<op>; KW_PREFIX, the unit's prefix
 * p; KW_HALF_LANE, the lane width in bits whose two halves kw_half_shift shifts (32 for 16-bit
 * elements, 16 for 8-bit ones); KW_NOT(x), the complement; KW_SHIFT8(left, x, y) and
 * KW_SHIFT16(left, x, y), the shifts of 8- and 16-bit elements (one of them kw_half_shift); and
 * KW_STORE_LANES(d, step, v), which stores the 128-bit lanes of v at d, d + step, ... After the
 * include it defines p_partial(op, o, ops, j, len), fewer than one vector of bytes at offset j
 * (a head or a tail), and p_plain(op, po, ops, nbytes), the loop with ordinary stores from byte
 * 0, which returns where it stopped. Everything here is BITCTS__CPU_INLINE: the generated code is
 * that of the unit's own functions. Thread-safety: stateless. */
#ifndef BITCTS_CPU_KERN_X86_WIDE_H
#define BITCTS_CPU_KERN_X86_WIDE_H

#include <immintrin.h> /* AVX2 / AVX-512 intrinsics */
#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint32_t, uintptr_t */

#include "cpu_kernels.h" /* BITCTS__CPU_INLINE, BITCTS__CPU_F_NT */
#include "kern_loops.h"  /* bitcts__cpu_operands, bitcts__cpu_tr_order */
#include "kern_stamp.h"  /* BITCTS__CPU_KOP_* */

#define KW_PASTE3_(a, b, c) a##b##c
#define KW_PASTE3(a, b, c) KW_PASTE3_(a, b, c)
#define KW_PASTE4_(a, b, c, d) a##b##c##d
#define KW_PASTE4(a, b, c, d) KW_PASTE4_(a, b, c, d)
/* The vector type, an intrinsic on elements (KW_(add_epi64): _mm256_add_epi64) and one on the
 * whole vector (KW_SI(and): _mm256_and_si256). */
#define KW_VEC KW_PASTE3(__m, KW_BITS, i)
#define KW_(op) KW_PASTE3(_mm, KW_BITS, _##op)
#define KW_SI(op) KW_PASTE4(_mm, KW_BITS, _##op##_si, KW_BITS)
/* The intrinsics on lanes of KW_HALF_LANE bits. */
#define KW_LANE_(op) KW_PASTE4(_mm, KW_BITS, _##op##_epi, KW_HALF_LANE)
#define KW_VBYTES (KW_BITS / 8)
#define KW_FN(name) KW_PASTE3(KW_PREFIX, _, name)

BITCTS__CPU_INLINE void KW_FN(partial)(int op, unsigned char *o, bitcts__cpu_operands ops, size_t j,
                                       size_t len);
BITCTS__CPU_INLINE size_t KW_FN(plain)(int op, unsigned char *po, bitcts__cpu_operands ops,
                                       size_t nbytes);

/* Elements of half a lane: the low and the high half of each KW_HALF_LANE-bit lane in two
 * steps, masked so that no bit crosses into the neighbour and counts >= the half's width leave
 * nothing. */
BITCTS__CPU_INLINE KW_VEC kw_half_shift(int left, KW_VEC x, KW_VEC c)
{
    const KW_VEC lo = KW_LANE_(set1)((1 << (KW_HALF_LANE / 2)) - 1);
    const KW_VEC xl = KW_SI(and)(x, lo);
    const KW_VEC cl = KW_SI(and)(c, lo);
    const KW_VEC xh = KW_SI(andnot)(lo, x);
    const KW_VEC ch = KW_LANE_(srli)(c, KW_HALF_LANE / 2);
    if (left) {
        const KW_VEC even = KW_SI(and)(KW_LANE_(sllv)(xl, cl), lo);
        return KW_SI(or)(even, KW_LANE_(sllv)(xh, ch));
    }
    const KW_VEC odd = KW_SI(andnot)(lo, KW_LANE_(srlv)(xh, ch));
    return KW_SI(or)(KW_LANE_(srlv)(xl, cl), odd);
}

BITCTS__CPU_INLINE KW_VEC kw_apply(int op, KW_VEC x, KW_VEC y)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND: return KW_SI(and)(x, y);
    case BITCTS__CPU_KOP_OR: return KW_SI(or)(x, y);
    case BITCTS__CPU_KOP_XOR: return KW_SI(xor)(x, y);
    case BITCTS__CPU_KOP_NOT: return KW_NOT(x);
    case BITCTS__CPU_KOP_SHL8: return KW_SHIFT8(1, x, y);
    case BITCTS__CPU_KOP_SHL16: return KW_SHIFT16(1, x, y);
    case BITCTS__CPU_KOP_SHL32: return KW_(sllv_epi32)(x, y);
    case BITCTS__CPU_KOP_SHL64: return KW_(sllv_epi64)(x, y);
    case BITCTS__CPU_KOP_SHR8: return KW_SHIFT8(0, x, y);
    case BITCTS__CPU_KOP_SHR16: return KW_SHIFT16(0, x, y);
    case BITCTS__CPU_KOP_SHR32: return KW_(srlv_epi32)(x, y);
    case BITCTS__CPU_KOP_SHR64: return KW_(srlv_epi64)(x, y);
    default: return x;
    }
}

/* The streaming path of the same-width loop over nbytes bytes: the head up to the output's
 * next vector boundary as a part, then whole vectors with streaming stores. Returns where it
 * stopped (the caller finishes the tail). */
BITCTS__CPU_INLINE size_t kw_binary_nt(int op, unsigned char *po, bitcts__cpu_operands ops,
                                       size_t nbytes)
{
    size_t head = (KW_VBYTES - ((uintptr_t)po & (KW_VBYTES - 1))) & (KW_VBYTES - 1);
    head = head < nbytes ? head : nbytes;
    if (head > 0) {
        KW_FN(partial)(op, po, ops, 0, head);
    }
    size_t j = head;
    for (; j + KW_VBYTES <= nbytes; j += KW_VBYTES) {
        const KW_VEC x = KW_SI(loadu)((const KW_VEC *)(ops.a + (j & ops.amask)));
        const KW_VEC y = KW_SI(loadu)((const KW_VEC *)(ops.b + (j & ops.bmask)));
        KW_SI(stream)((KW_VEC *)(po + j), kw_apply(op, x, y));
    }
    return j;
}

/* The loop of every same-width operator over n elements of w bytes (the BITWISE, SHIFTS and
 * STREAM skeleton of kern_stamp.h). A scalar operand becomes a pattern of two vectors (two
 * periods) read at (j & (KW_VBYTES - 1)), in phase with the element boundaries. */
BITCTS__CPU_INLINE void KW_FN(binary)(int op, uint32_t w, void *out, const void *a, const void *b,
                                      size_t n, uint32_t flags)
{
    _Alignas(KW_VBYTES) unsigned char pattern[2 * KW_VBYTES];
    const bitcts__cpu_operands ops = bitcts__cpu_operands_of(w, KW_VBYTES, 0, pattern, a, b, flags);
    unsigned char *po = out;
    const size_t nbytes = n * w;
    size_t j = 0;
    if ((flags & BITCTS__CPU_F_NT) && ((uintptr_t)po % w) == 0) {
        j = kw_binary_nt(op, po, ops, nbytes);
    } else {
        j = KW_FN(plain)(op, po, ops, nbytes);
    }
    if (j < nbytes) {
        KW_FN(partial)(op, po, ops, j, nbytes - j);
    }
}

/* ---- the streaming triad ---- */

/* out = a + 3 * b on the whole vectors of n uint64 words, with streaming stores when asked and
 * the output is aligned. Returns the words done (the unit finishes the tail). */
BITCTS__CPU_INLINE size_t kw_triad_vectors(unsigned char *po, const unsigned char *pa,
                                           const unsigned char *pb, size_t n, uint32_t flags)
{
    const int nt = (flags & BITCTS__CPU_F_NT) && ((uintptr_t)po & (KW_VBYTES - 1)) == 0;
    size_t i = 0;
    for (; i + KW_VBYTES / 8 <= n; i += KW_VBYTES / 8) {
        const KW_VEC x = KW_SI(loadu)((const KW_VEC *)(pa + 8 * i));
        const KW_VEC y = KW_SI(loadu)((const KW_VEC *)(pb + 8 * i));
        const KW_VEC r = KW_(add_epi64)(x, KW_(add_epi64)(y, KW_(add_epi64)(y, y)));
        if (nt) {
            KW_SI(stream)((KW_VEC *)(po + 8 * i), r);
        } else {
            KW_SI(storeu)((KW_VEC *)(po + 8 * i), r);
        }
    }
    return i;
}

/* ---- the shaped stream (the bench's limit for a count to another width) ---- */

BITCTS__CPU_INLINE void kw_store(unsigned char *p, KW_VEC v, int nt)
{
    if (nt) {
        KW_SI(stream)((KW_VEC *)p, v);
    } else {
        KW_SI(storeu)((KW_VEC *)p, v);
    }
}

/* The shaped stream over n 64-byte units of the smaller side. Widening: each vector of a stored
 * `ratio` times in a row (one load, ratio stores). Narrowing: each vector of out the XOR of the
 * `ratio` vectors of a in a row that stand for it (ratio loads, one store). Streaming stores when
 * asked and out is aligned. widen is a constant at every entry point. */
BITCTS__CPU_INLINE void KW_FN(shaped)(int widen, uint32_t ratio, void *out, const void *a, size_t n,
                                      uint32_t flags)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    const int nt = (flags & BITCTS__CPU_F_NT) && ((uintptr_t)po & (KW_VBYTES - 1)) == 0;
    for (size_t i = 0; i < n * (64 / KW_VBYTES); ++i) {
        if (widen) {
            const KW_VEC x = KW_SI(loadu)((const KW_VEC *)(pa + i * KW_VBYTES));
            for (uint32_t j = 0; j < ratio; ++j) {
                kw_store(po + (i * ratio + j) * KW_VBYTES, x, nt);
            }
            continue;
        }
        const unsigned char *in = pa + i * ratio * KW_VBYTES;
        KW_VEC x = KW_SI(loadu)((const KW_VEC *)in);
        for (uint32_t j = 1; j < ratio; ++j) {
            x = KW_SI(xor)(x, KW_SI(loadu)((const KW_VEC *)(in + j * KW_VBYTES)));
        }
        kw_store(po + i * KW_VBYTES, x, nt);
    }
}

/* ---- transposes (the walk's gather of a transposed operand) ---- */

/* Interleaves the low (hi = 0) or high halves of a and b in units of ew bytes, per lane. */
BITCTS__CPU_INLINE KW_VEC kw_tr_unpack(KW_VEC a, KW_VEC b, uint32_t ew, int hi)
{
    switch (ew) {
    case 1: return hi ? KW_(unpackhi_epi8)(a, b) : KW_(unpacklo_epi8)(a, b);
    case 2: return hi ? KW_(unpackhi_epi16)(a, b) : KW_(unpacklo_epi16)(a, b);
    case 4: return hi ? KW_(unpackhi_epi32)(a, b) : KW_(unpacklo_epi32)(a, b);
    default: return hi ? KW_(unpackhi_epi64)(a, b) : KW_(unpacklo_epi64)(a, b);
    }
}

/* n = 16 / w lines of one vector: each 128-bit lane holds an n x n block, transposed by log2(n)
 * rounds of unpacks; register k then holds, in lane l, destination row l * n + order(k). */
BITCTS__CPU_INLINE void kw_tr_block(uint32_t w, unsigned char *dst, size_t ds,
                                    const unsigned char *src, size_t ss)
{
    const uint32_t n = 16 / w;
    KW_VEC r[16];
#pragma GCC unroll 16
    for (uint32_t j = 0; j < n; ++j) {
        r[j] = KW_SI(loadu)((const KW_VEC *)(src + j * ss));
    }
#pragma GCC unroll 4
    for (uint32_t ew = w; ew < 16; ew *= 2) {
        KW_VEC t[16];
#pragma GCC unroll 8
        for (uint32_t i = 0; i < n / 2; ++i) {
            t[i] = kw_tr_unpack(r[2 * i], r[2 * i + 1], ew, 0);
            t[i + n / 2] = kw_tr_unpack(r[2 * i], r[2 * i + 1], ew, 1);
        }
#pragma GCC unroll 16
        for (uint32_t i = 0; i < n; ++i) {
            r[i] = t[i];
        }
    }
#pragma GCC unroll 16
    for (uint32_t k = 0; k < n; ++k) {
        unsigned char *d = dst + bitcts__cpu_tr_order[k * (16 / n)] * ds;
        KW_STORE_LANES(d, n * ds, r[k]);
    }
}

#endif
