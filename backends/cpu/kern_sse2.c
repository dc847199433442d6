/* SPDX-License-Identifier: MIT */
/* The "sse2" variant: 128-bit inner loops for AND/OR/XOR/NOT, BIT_COUNT (SWAR byte counts,
 * widened with madd/sad, since pshufb needs SSSE3) and the streaming limits. SSE2 has no
 * per-element variable shift, so the shift slots stay NULL and come from "scalar". Built with
 * -msse2 only. Tails are finished one byte or element at a time in this file. */
#include <emmintrin.h> /* SSE2 intrinsics */
#include <stdint.h>    /* uintptr_t */
#include <string.h>    /* memcpy */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

BITCTS__CPU_INLINE __m128i s2_apply(int op, __m128i x, __m128i y)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND: return _mm_and_si128(x, y);
    case BITCTS__CPU_KOP_OR: return _mm_or_si128(x, y);
    case BITCTS__CPU_KOP_XOR: return _mm_xor_si128(x, y);
    case BITCTS__CPU_KOP_NOT: return _mm_xor_si128(x, _mm_set1_epi32(-1));
    default: return x;
    }
}

BITCTS__CPU_INLINE unsigned char s2_apply_byte(int op, unsigned char x, unsigned char y)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND: return (unsigned char)(x & y);
    case BITCTS__CPU_KOP_OR: return (unsigned char)(x | y);
    case BITCTS__CPU_KOP_XOR: return (unsigned char)(x ^ y);
    case BITCTS__CPU_KOP_NOT: return (unsigned char)~x;
    default: return x;
    }
}

/* Bytes [j, end) one at a time: the non-temporal head and the tail. */
BITCTS__CPU_INLINE void s2_bytes(int op, unsigned char *o, bitcts__cpu_operands ops, size_t j,
                                 size_t end)
{
    for (; j < end; ++j) {
        o[j] = s2_apply_byte(op, ops.a[j], ops.b[j & ops.bmask]);
    }
}

/* A scalar operand becomes a 32-byte pattern (two periods of 16) read at offset (j & 15), so
 * the lanes stay in phase with the element boundaries whatever j is; the three operators
 * commute, so the scalar one is always B. */
BITCTS__CPU_INLINE void s2_binary(int op, uint32_t w, void *out, const void *a, const void *b,
                                  size_t n, uint32_t flags)
{
    _Alignas(16) unsigned char pattern[32];
    const bitcts__cpu_operands ops = bitcts__cpu_operands_of(w, 16, 1, pattern, a, b, flags);
    unsigned char *po = out;
    const size_t nbytes = n * w;
    size_t j = 0;
    if (flags & BITCTS__CPU_F_NT) {
        size_t head = (16 - ((uintptr_t)po & 15)) & 15;
        head = head < nbytes ? head : nbytes;
        s2_bytes(op, po, ops, 0, head);
        for (j = head; j + 16 <= nbytes; j += 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(ops.a + j));
            const __m128i y = _mm_loadu_si128((const __m128i *)(ops.b + (j & ops.bmask)));
            _mm_stream_si128((__m128i *)(po + j), s2_apply(op, x, y));
        }
    } else {
        for (; j + 16 <= nbytes; j += 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(ops.a + j));
            const __m128i y = _mm_loadu_si128((const __m128i *)(ops.b + (j & ops.bmask)));
            _mm_storeu_si128((__m128i *)(po + j), s2_apply(op, x, y));
        }
    }
    s2_bytes(op, po, ops, j, nbytes);
}

/* Per-byte population counts (SWAR within bytes). */
BITCTS__CPU_INLINE __m128i s2_popcnt_bytes(__m128i v)
{
    const __m128i m1 = _mm_set1_epi8(0x55);
    const __m128i m2 = _mm_set1_epi8(0x33);
    const __m128i m4 = _mm_set1_epi8(0x0F);
    v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi16(v, 1), m1));
    v = _mm_add_epi8(_mm_and_si128(v, m2), _mm_and_si128(_mm_srli_epi16(v, 2), m2));
    return _mm_and_si128(_mm_add_epi8(v, _mm_srli_epi16(v, 4)), m4);
}

/* Counts of the 16 / w elements of one 16-byte block, stored as UINT8 (ow 1) or UINT32 (ow 4). */
BITCTS__CPU_INLINE void s2_count_block(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, int nt)
{
    (void)nt; /* never set: s2_count passes no NT flag */
    const __m128i zero = _mm_setzero_si128();
    const __m128i c8 = s2_popcnt_bytes(_mm_loadu_si128((const __m128i *)a));
    const __m128i c16 =
        _mm_and_si128(_mm_add_epi16(c8, _mm_srli_epi16(c8, 8)), _mm_set1_epi16(0xFF));
    if (w == 1 && ow == 1) {
        _mm_storeu_si128((__m128i *)o, c8);
    } else if (w == 1) {
        const __m128i lo = _mm_unpacklo_epi8(c8, zero);
        const __m128i hi = _mm_unpackhi_epi8(c8, zero);
        _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(o + 32), _mm_unpacklo_epi16(hi, zero));
        _mm_storeu_si128((__m128i *)(o + 48), _mm_unpackhi_epi16(hi, zero));
    } else if (w == 2 && ow == 1) {
        _mm_storel_epi64((__m128i *)o, _mm_packus_epi16(c16, c16));
    } else if (w == 2) {
        _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(c16, zero));
        _mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(c16, zero));
    } else if (w == 4) {
        const __m128i c32 = _mm_madd_epi16(c16, _mm_set1_epi16(1));
        if (ow == 4) {
            _mm_storeu_si128((__m128i *)o, c32);
        } else {
            const __m128i p = _mm_packus_epi16(_mm_packs_epi32(c32, c32), zero);
            const uint32_t v = (uint32_t)_mm_cvtsi128_si32(p);
            memcpy(o, &v, 4);
        }
    } else {
        const __m128i c64 = _mm_sad_epu8(c8, zero); /* counts in bits 0-15 and 64-79 */
        if (ow == 4) {
            _mm_storel_epi64((__m128i *)o, _mm_shuffle_epi32(c64, 0x08));
        } else {
            o[0] = (unsigned char)_mm_cvtsi128_si32(c64);
            o[1] = (unsigned char)_mm_extract_epi16(c64, 4);
        }
    }
}

/* s2_count: 16-byte blocks with ordinary stores, then the tail. */
BITCTS__CPU_COUNT_16(s2)

/* Two words of the triad, with a streaming store when nt. */
BITCTS__CPU_INLINE void s2_triad_pair(unsigned char *o, const unsigned char *a,
                                      const unsigned char *b, int nt)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)a);
    const __m128i y = _mm_loadu_si128((const __m128i *)b);
    const __m128i r = _mm_add_epi64(x, _mm_add_epi64(y, _mm_add_epi64(y, y)));
    if (nt) {
        _mm_stream_si128((__m128i *)o, r);
    } else {
        _mm_storeu_si128((__m128i *)o, r);
    }
}

/* Streaming limit: out = a + 3 * b (n uint64 words). */
static void s2_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    const int nt = (flags & BITCTS__CPU_F_NT) && ((uintptr_t)out & 15) == 0;
    bitcts__cpu_triad_pairs(out, a, b, n, nt, s2_triad_pair);
}

/* Orders this variant's streaming stores (the caller fences once per range). */
static void s2_fence(void)
{
    _mm_sfence();
}

/* No shifts (SSE2 has no per-element variable shift): they come from "scalar". No transpose:
 * the walk gathers in portable C. */
BITCTS__CPU_STAMP_VARIANT(sse2, s2, BITCTS_CPU_FEAT_SSE2, 10, s2_fence, BITWISE, NO_SHIFTS, COUNT,
                          STREAM, NO_TRANSPOSE, NO_SHAPED);
