/* SPDX-License-Identifier: MIT */
/* The "avx512" variant (AVX-512 F+BW+VL): 512-bit inner loops for every operator, with heads
 * and tails done by byte-masked loads and stores. Shifts use vpsllv/vpsrlv (w/d/q), which
 * zero-fill counts >= the lane width; 8-bit elements are shifted as the two halves of 16-bit
 * lanes. BIT_COUNT is kern_avx512_count.h's loop over nibble vpshufb table counts widened with
 * maddubs/madd/sad (kern_avx512pop.c runs the same loop on VPOPCNT). Built with -mavx512f
 * -mavx512bw -mavx512vl. */
#include <immintrin.h> /* AVX-512 intrinsics */
#include <stdint.h>    /* uintptr_t */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

/* Per-lane counts for kern_avx512_count.h: bytes through the nibble table, wider lanes by
 * summing them. */
BITCTS__CPU_INLINE __m512i a5_popcnt8(__m512i v)
{
    const __m512i lut =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i nib = _mm512_set1_epi8(0x0F);
    const __m512i lo = _mm512_shuffle_epi8(lut, _mm512_and_si512(v, nib));
    const __m512i hi = _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib));
    return _mm512_add_epi8(lo, hi);
}

BITCTS__CPU_INLINE __m512i a5_popcnt16(__m512i v)
{
    return _mm512_maddubs_epi16(a5_popcnt8(v), _mm512_set1_epi8(1));
}

BITCTS__CPU_INLINE __m512i a5_popcnt32(__m512i v)
{
    return _mm512_madd_epi16(a5_popcnt16(v), _mm512_set1_epi16(1));
}

BITCTS__CPU_INLINE __m512i a5_popcnt64(__m512i v)
{
    return _mm512_sad_epu8(a5_popcnt8(v), _mm512_setzero_si512());
}

#include "kern_avx512_count.h"

/* 8-bit elements: the low and high byte of each 16-bit lane in two steps, masked so that no
 * bit crosses into the neighbour and counts >= 8 leave nothing. */
BITCTS__CPU_INLINE __m512i a5_shift8(int left, __m512i x, __m512i c)
{
    const __m512i lo = _mm512_set1_epi16(0x00FF);
    const __m512i xl = _mm512_and_si512(x, lo);
    const __m512i cl = _mm512_and_si512(c, lo);
    const __m512i xh = _mm512_andnot_si512(lo, x);
    const __m512i ch = _mm512_srli_epi16(c, 8);
    if (left) {
        const __m512i even = _mm512_and_si512(_mm512_sllv_epi16(xl, cl), lo);
        return _mm512_or_si512(even, _mm512_sllv_epi16(xh, ch));
    }
    const __m512i odd = _mm512_andnot_si512(lo, _mm512_srlv_epi16(xh, ch));
    return _mm512_or_si512(_mm512_srlv_epi16(xl, cl), odd);
}

BITCTS__CPU_INLINE __m512i a5_apply(int op, __m512i x, __m512i y)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND: return _mm512_and_si512(x, y);
    case BITCTS__CPU_KOP_OR: return _mm512_or_si512(x, y);
    case BITCTS__CPU_KOP_XOR: return _mm512_xor_si512(x, y);
    case BITCTS__CPU_KOP_NOT: return _mm512_ternarylogic_epi64(x, x, x, 0x55);
    case BITCTS__CPU_KOP_SHL8: return a5_shift8(1, x, y);
    case BITCTS__CPU_KOP_SHL16: return _mm512_sllv_epi16(x, y);
    case BITCTS__CPU_KOP_SHL32: return _mm512_sllv_epi32(x, y);
    case BITCTS__CPU_KOP_SHL64: return _mm512_sllv_epi64(x, y);
    case BITCTS__CPU_KOP_SHR8: return a5_shift8(0, x, y);
    case BITCTS__CPU_KOP_SHR16: return _mm512_srlv_epi16(x, y);
    case BITCTS__CPU_KOP_SHR32: return _mm512_srlv_epi32(x, y);
    case BITCTS__CPU_KOP_SHR64: return _mm512_srlv_epi64(x, y);
    default: return x;
    }
}

/* Up to 64 bytes at offset j with masked loads and stores: heads and tails. */
BITCTS__CPU_INLINE void a5_partial(int op, unsigned char *o, bitcts__cpu_operands ops, size_t j,
                                   size_t len)
{
    const __mmask64 m = a5_mask(len, 0);
    const __m512i x = _mm512_maskz_loadu_epi8(m, ops.a + (j & ops.amask));
    const __m512i y = _mm512_maskz_loadu_epi8(m, ops.b + (j & ops.bmask));
    _mm512_mask_storeu_epi8(o + j, m, a5_apply(op, x, y));
}

/* The loop of every same-width operator over n elements of w bytes. A scalar operand becomes a
 * 128-byte pattern (two periods of 64) read at (j & 63), in phase with the element boundaries. */
BITCTS__CPU_INLINE void a5_binary(int op, uint32_t w, void *out, const void *a, const void *b,
                                  size_t n, uint32_t flags)
{
    _Alignas(64) unsigned char pattern[128];
    const bitcts__cpu_operands ops = bitcts__cpu_operands_of(w, 64, 0, pattern, a, b, flags);
    unsigned char *po = out;
    const size_t nbytes = n * w;
    size_t j = 0;
    if ((flags & BITCTS__CPU_F_NT) && ((uintptr_t)po % w) == 0) {
        size_t head = (64 - ((uintptr_t)po & 63)) & 63;
        head = head < nbytes ? head : nbytes;
        if (head > 0) {
            a5_partial(op, po, ops, 0, head);
        }
        for (j = head; j + 64 <= nbytes; j += 64) {
            const __m512i x = _mm512_loadu_si512(ops.a + (j & ops.amask));
            const __m512i y = _mm512_loadu_si512(ops.b + (j & ops.bmask));
            _mm512_stream_si512((void *)(po + j), a5_apply(op, x, y));
        }
    } else {
        for (; j + 128 <= nbytes; j += 128) {
            const __m512i x0 = _mm512_loadu_si512(ops.a + (j & ops.amask));
            const __m512i y0 = _mm512_loadu_si512(ops.b + (j & ops.bmask));
            const __m512i x1 = _mm512_loadu_si512(ops.a + ((j + 64) & ops.amask));
            const __m512i y1 = _mm512_loadu_si512(ops.b + ((j + 64) & ops.bmask));
            _mm512_storeu_si512(po + j, a5_apply(op, x0, y0));
            _mm512_storeu_si512(po + j + 64, a5_apply(op, x1, y1));
        }
        if (j + 64 <= nbytes) {
            a5_partial(op, po, ops, j, 64);
            j += 64;
        }
    }
    if (j < nbytes) {
        a5_partial(op, po, ops, j, nbytes - j);
    }
}

/* ---- stream limits ---- */

static void a5_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    const int nt = (flags & BITCTS__CPU_F_NT) && ((uintptr_t)po & 63) == 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m512i x = _mm512_loadu_si512(pa + 8 * i);
        const __m512i y = _mm512_loadu_si512(pb + 8 * i);
        const __m512i r = _mm512_add_epi64(x, _mm512_add_epi64(y, _mm512_add_epi64(y, y)));
        if (nt) {
            _mm512_stream_si512((void *)(po + 8 * i), r);
        } else {
            _mm512_storeu_si512(po + 8 * i, r);
        }
    }
    if (i < n) {
        const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        const __m512i x = _mm512_maskz_loadu_epi64(m, pa + 8 * i);
        const __m512i y = _mm512_maskz_loadu_epi64(m, pb + 8 * i);
        const __m512i r = _mm512_add_epi64(x, _mm512_add_epi64(y, _mm512_add_epi64(y, y)));
        _mm512_mask_storeu_epi64(po + 8 * i, m, r);
    }
}

/* ---- transposes (the walk's gather of a transposed operand) ---- */

/* Interleaves the low (hi = 0) or high halves of a and b in units of ew bytes, per lane. */
BITCTS__CPU_INLINE __m512i a5_tr_unpack(__m512i a, __m512i b, uint32_t ew, int hi)
{
    switch (ew) {
    case 1: return hi ? _mm512_unpackhi_epi8(a, b) : _mm512_unpacklo_epi8(a, b);
    case 2: return hi ? _mm512_unpackhi_epi16(a, b) : _mm512_unpacklo_epi16(a, b);
    case 4: return hi ? _mm512_unpackhi_epi32(a, b) : _mm512_unpacklo_epi32(a, b);
    default: return hi ? _mm512_unpackhi_epi64(a, b) : _mm512_unpacklo_epi64(a, b);
    }
}

/* n = 16 / w lines of 64 bytes: each 128-bit lane holds an n x n block, transposed by log2(n)
 * rounds of unpacks; register k then holds, in lane l, destination row l * n + order(k). */
BITCTS__CPU_INLINE void a5_tr_block(uint32_t w, unsigned char *dst, size_t ds,
                                    const unsigned char *src, size_t ss)
{
    const uint32_t n = 16 / w;
    __m512i r[16];
#pragma GCC unroll 16
    for (uint32_t j = 0; j < n; ++j) {
        r[j] = _mm512_loadu_si512(src + j * ss);
    }
#pragma GCC unroll 4
    for (uint32_t ew = w; ew < 16; ew *= 2) {
        __m512i t[16];
#pragma GCC unroll 8
        for (uint32_t i = 0; i < n / 2; ++i) {
            t[i] = a5_tr_unpack(r[2 * i], r[2 * i + 1], ew, 0);
            t[i + n / 2] = a5_tr_unpack(r[2 * i], r[2 * i + 1], ew, 1);
        }
#pragma GCC unroll 16
        for (uint32_t i = 0; i < n; ++i) {
            r[i] = t[i];
        }
    }
#pragma GCC unroll 16
    for (uint32_t k = 0; k < n; ++k) {
        unsigned char *d = dst + bitcts__cpu_tr_order[k * (16 / n)] * ds;
        _mm_storeu_si128((__m128i *)d, _mm512_castsi512_si128(r[k]));
        _mm_storeu_si128((__m128i *)(d + n * ds), _mm512_extracti32x4_epi32(r[k], 1));
        _mm_storeu_si128((__m128i *)(d + 2 * n * ds), _mm512_extracti32x4_epi32(r[k], 2));
        _mm_storeu_si128((__m128i *)(d + 3 * n * ds), _mm512_extracti32x4_epi32(r[k], 3));
    }
}

/* Groups of 16 / w lines, 64 bytes at a time. */
BITCTS__CPU_INLINE size_t a5_transpose(uint32_t w, void *dst, size_t ds, const void *src, size_t ss,
                                       size_t lines, size_t len)
{
    return bitcts__cpu_transpose_groups(w, 64, a5_tr_block, dst, ds, src, ss, lines, len);
}

/* Orders this variant's streaming stores (the caller fences once per range). */
static void a5_fence(void)
{
    _mm_sfence();
}

BITCTS__CPU_STAMP_VARIANT(avx512, a5,
                          BITCTS_CPU_FEAT_SSE2 | BITCTS_CPU_FEAT_AVX2 | BITCTS_CPU_FEAT_AVX512F |
                              BITCTS_CPU_FEAT_AVX512BW | BITCTS_CPU_FEAT_AVX512VL,
                          30, a5_fence, BITWISE, SHIFTS, COUNT, STREAM, TRANSPOSE);
